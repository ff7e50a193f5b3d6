/**
 * The fast forms of two hooks Claude Code runs on its busiest paths, as one Perl script teamux writes
 * into its exec folder outside the team folder (`hooks`, run only once its digest checks: exec-check.ts), loading only Perl's own JSON::PP, so it starts in
 * milliseconds where node needs tens to hundreds (and competes for the CPU with the tool Claude Code
 * is starting):
 * - StatusLine (after every change on screen): records cost, tokens and model in the member's
 *   activity record, under the same lock directory proper-lockfile takes (store/lock.ts), and prints
 *   the line shown under the prompt. Tokens are summed from the transcript incrementally: how far it
 *   was read, the sums and the latest response ids are kept in `claude/<member>/status-sync.json`.
 * - PreToolUse (before every tool): answers nothing at once (no objection) when no gate can apply:
 *   no budget on the member or the team in team.json, and either a tool on the plan gate's allowlist
 *   (tool-gate.ts, written into the script as a table) or a member whose plan is not required and
 *   that is not a teammate of Claude Code's own team. Anything else is for the full hook (a plan's approval
 *   is a signature to check, a budget's spend is brought up to date from the transcript there).
 * Anything unexpected (another argv, input that is not a JSON object, a member team.json does not
 * list, a folder that is a link) goes to the node CLI with the same argv and the stdin already read.
 * Pure text; the same fallback as stop-perl.ts.
 */
import { TOKEN_FIELDS } from '../../protocol/transcript-usage.js';
import { deadlineRefusal, PRE_TOOL_DEADLINE_S } from './hook-deadline.js';
import { perlSlurp } from './perl-read.js';
import { LOCK_PROTOCOL } from '../../store/lock-protocol.js';
import { CLAUDE_READ_ONLY_TOOLS } from './tool-gate.js';

const perlString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The script; `node` runs `teamuxBin` (the full CLI) for everything the fast paths do not answer. */
export function perlHookScript(perl: string, node: string, teamuxBin: string): string {
  const readOnly = CLAUDE_READ_ONLY_TOOLS.names.map(perlString).join(', ');
  const readOnlyPrefixes = CLAUDE_READ_ONLY_TOOLS.prefixes.map(perlString).join(', ');
  return `#!${perl}
# teamux's fast StatusLine and PreToolUse hooks for Claude Code (src/agents/claude/hook-perl.ts), generated
# by teamux. Whatever they do not answer goes to the full CLI, with the same argv and stdin.
use strict;
use JSON::PP ();
use B ();
use Time::HiRes ();
use Fcntl qw(O_WRONLY O_CREAT O_EXCL O_NOFOLLOW);
# PreToolUse refuses the tool on its own deadline, before Claude Code's timeout (which would run it).
if (($ARGV[1] // '') eq 'PreToolUse') { $SIG{ALRM} = sub { print STDERR ${perlString(deadlineRefusal(PRE_TOOL_DEADLINE_S))}, "\\n"; exit 2; }; alarm(${PRE_TOOL_DEADLINE_S}); }
my ($node, $bin) = (${perlString(node)}, ${perlString(teamuxBin)});
# The plan gate's allowlist (src/agents/claude/tool-gate.ts): every other tool waits for an approved plan.
my %READ_ONLY = map { $_ => 1 } (${readOnly});
my @READ_ONLY_PREFIXES = (${readOnlyPrefixes});
sub gated { my $t = shift; return 0 if $READ_ONLY{$t}; for my $p (@READ_ONLY_PREFIXES) { return 0 if index($t, $p) == 0; } return 1; }
my $input = do { local $/; my $t = <STDIN>; defined $t ? $t : '' };

# The full hook in this very process (exec), a forked child writing the input to its stdin.
sub full {
  pipe(my $r, my $w) or exit 1;
  my $pid = fork();
  exit 1 unless defined $pid;
  if ($pid != 0) {
    close $w;
    open(STDIN, '<&', $r) or exit 1;
    # The full hook keeps its own deadline (a pending alarm would kill it instead).
    alarm(0);
    exec $node, $bin, @ARGV;
    exit 1;
  }
  close $r;
  print {$w} $input;
  close $w;
  exit 0;
}
${perlSlurp()}# A real folder, not a link (a member must not redirect teamux's writes elsewhere).
sub real_dir { my $d = shift; mkdir $d, 0700 unless -e $d; return -d $d && !-l $d; }

my ($verb, $event, $as, $member, $dirflag, $dir, @rest) = @ARGV;
full() unless defined $dir && $verb eq 'hook' && $as eq '--as' && $dirflag eq '--team-dir' && !@rest;
full() unless $event eq 'StatusLine' || $event eq 'PreToolUse';
full() unless $member =~ /\\A[a-z][a-z0-9_-]{0,31}\\z/ && $dir =~ m{\\A/};
my $json = JSON::PP->new->utf8;
my $in = eval { $json->decode($input) };
full() unless ref $in eq 'HASH';
my $team = eval { $json->decode(slurp("$dir/team.json", 'roster')) };
full() unless ref $team eq 'HASH' && ref $team->{members} eq 'ARRAY';
my ($me) = grep { ref $_ eq 'HASH' && defined $_->{name} && $_->{name} eq $member } @{$team->{members}};
full() unless $me;

if ($event eq 'PreToolUse') {
  # A budget (spent or not: only the full hook brings the spend up to date) or a gated tool: the full hook.
  full() if defined $team->{budget} || defined $me->{budget};
  my $tool = $in->{tool_name} // '';
  full() if ref $tool;
  # A tool the plan gate holds, for a member whose plan is required (team.json or the environment it
  # was started with, as protocol/plan-gate.ts reads it), or a teammate of Claude Code's own team (its
  # PreToolUse asks for permission): the full hook.
  full() if gated($tool) && ($me->{planRequired} || ($ENV{TEAMUX_PLAN_REQUIRED} // '') eq '1' || $me->{claudeTeam});
  exit 0;
}

# StatusLine.
full() unless real_dir("$dir/claude") && real_dir("$dir/claude/$member");
my $file = "$dir/claude/$member.activity.json";
my $cost = ref $in->{cost} eq 'HASH' ? $in->{cost}{total_cost_usd} : undef;
$cost = undef unless defined $cost && !ref $cost && $cost =~ /\\A-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?\\z/;
my $path = $in->{transcript_path};
$path = undef unless defined $path && !ref $path && length $path;
my $model = ref $in->{model} eq 'HASH' ? $in->{model}{id} : undef;
$model = undef if ref $model;

sub iso_now {
  my $t = Time::HiRes::time();
  my @g = gmtime(int $t);
  return sprintf('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', $g[5] + 1900, $g[4] + 1, @g[3, 2, 1, 0], int(($t - int $t) * 1000));
}
# Write beside the file and rename over it, as store/fsx.ts atomicWrite does (its temp name form).
sub write_atomic {
  my ($f, $text) = @_;
  my ($d, $b) = $f =~ m{\\A(.*)/([^/]+)\\z};
  my $tmp = sprintf('%s/.%s.%d-0.%08x.tmp', $d, $b, $$, int(rand(0xffffffff)));
  sysopen(my $h, $tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or return 0;
  my $ok = (print {$h} $text) && close($h);
  $ok = rename($tmp, $f) if $ok;
  unlink $tmp unless $ok;
  return $ok;
}
# The team folder's lock (src/store/lock-protocol.ts, proper-lockfile's): a directory <target>.lock,
# its mtime moved while held, stale when it is 5 s old. Gives up after about 2 s (the next status line
# records what this one could not).
sub with_lock {
  my ($target, $fn) = @_;
  my $lock = "$target${LOCK_PROTOCOL.suffix}";
  for (my $i = 0; $i < 100; $i++) {
    return 0 if -l $lock;
    if (mkdir $lock, 0700) {
      # Claude Code may end a status line that is still running: the lock goes with it, not 5 s later.
      local @SIG{qw(TERM INT HUP PIPE)} = (sub { rmdir $lock; exit 1 }) x 4;
      # The holder's heartbeat: the lock's mtime moves every ${LOCK_PROTOCOL.updateMs} ms while it is held.
      local $SIG{ALRM} = sub { utime(undef, undef, $lock); Time::HiRes::alarm(${LOCK_PROTOCOL.updateMs / 1000}); };
      Time::HiRes::alarm(${LOCK_PROTOCOL.updateMs / 1000});
      eval { $fn->() };
      Time::HiRes::alarm(0);
      rmdir $lock;
      return 1;
    }
    my $m = (stat $lock)[9];
    if (defined $m && Time::HiRes::time() - $m > ${LOCK_PROTOCOL.staleMs / 1000}) { rmdir $lock; next; }
    Time::HiRes::sleep(0.02);
  }
  return 0;
}
# The rule of src/protocol/transcript-usage.ts: a token field counts when it is a JSON number that is
# a whole number from 0 to 2^53 - 1 (B's flags tell a number from a string; read them before anything
# uses the value as text); a key or a model is a JSON string.
my %F = (${Object.entries(TOKEN_FIELDS).map(([k, v]) => `${k} => ${perlString(v)}`).join(', ')});
sub is_text { return defined $_[0] && !ref $_[0] && (B::svref_2object(\\$_[0])->FLAGS & B::SVf_POK); }
sub count {
  return 0 unless defined $_[0] && !ref $_[0];
  my $f = B::svref_2object(\\$_[0])->FLAGS;
  return 0 if $f & B::SVf_POK or !($f & (B::SVf_IOK | B::SVf_NOK));
  my $v = $_[0];
  return $v == int($v) && $v >= 0 && $v <= 9007199254740991 ? $v : 0;
}
# Tokens of the transcript (input with cache, output) and its latest model, read on from where the
# last status line stopped; undef when there is no transcript to read (as the full hook does).
sub transcript_tokens {
  return undef unless defined $path;
  open(my $h, '<', $path) or return undef;
  my $size = -s $h;
  return undef unless $size;
  my $state_file = "$dir/claude/$member/status-sync.json";
  my $st = eval { $json->decode(slurp($state_file, 'record')) };
  $st = undef unless ref $st eq 'HASH' && defined $st->{file} && $st->{file} eq $path && ref $st->{ids} eq 'ARRAY'
    && defined $st->{offset} && $st->{offset} =~ /\\A\\d+\\z/ && $st->{offset} <= $size;
  $st ||= { file => $path, offset => 0, input => 0, output => 0, model => undef, ids => [] };
  my %seen = map { $_ => 1 } @{$st->{ids}};
  seek($h, $st->{offset}, 0);
  my $text = do { local $/; my $t = <$h>; defined $t ? $t : '' };
  close $h;
  my $end = rindex($text, "\\n");
  if ($end >= 0) {
    for my $line (split /\\n/, substr($text, 0, $end)) {
      next unless index($line, '"usage"') >= 0 && index($line, '"assistant"') >= 0;
      my $rec = eval { $json->decode($line) };
      next unless ref $rec eq 'HASH' && defined $rec->{type} && $rec->{type} eq 'assistant' && ref $rec->{message} eq 'HASH';
      my $u = $rec->{message}{usage};
      next unless ref $u eq 'HASH';
      my ($key) = grep { is_text($_) && length $_ } ($rec->{message}{id}, $rec->{requestId});
      if (defined $key) {
        next if $seen{$key}++;
        push @{$st->{ids}}, $key;
      }
      $st->{input} += count($u->{$F{input}}) + count($u->{$F{cacheRead}}) + count($u->{$F{cacheWrite}});
      $st->{output} += count($u->{$F{output}});
      $st->{model} = $rec->{message}{model} if is_text($rec->{message}{model});
    }
    splice(@{$st->{ids}}, 0, @{$st->{ids}} - 64) if @{$st->{ids}} > 64;
    $st->{offset} += $end + 1;
    write_atomic($state_file, $json->encode($st));
  }
  return { input => $st->{input} + 0, output => $st->{output} + 0, model => $st->{model} };
}

my $rec;
with_lock($file, sub {
  my $old = eval { $json->decode(slurp($file, 'record')) };
  my %next = (state => 'starting', ref $old eq 'HASH' ? %$old : ());
  $next{costUsd} = $cost + 0 if defined $cost;
  my $t = transcript_tokens();
  $next{tokens} = { input => $t->{input}, output => $t->{output} } if $t;
  $next{model} = defined $model ? $model : $t && defined $t->{model} ? $t->{model} : undef;
  $next{at} = iso_now();
  write_atomic($file, JSON::PP->new->utf8->pretty->encode(\\%next)) and $rec = \\%next;
});
# Not recorded (the lock stayed busy): the line from the record as it is.
$rec ||= eval { $json->decode(slurp($file, 'record')) };
$rec = {} unless ref $rec eq 'HASH';
my $state = defined $rec->{state} && !ref $rec->{state} ? $rec->{state} : 'starting';
my @parts = ("teamux $member", defined $rec->{budget} ? "$state (budget spent)" : $state);
my $tk = $rec->{tokens};
push @parts, sprintf('%d tokens', $tk->{input} + $tk->{output}) if ref $tk eq 'HASH';
# Dollars as JavaScript's toFixed(2) writes them (a tie goes up, where printf goes to even).
sub dollars { my $c = $_[0] * 100; return sprintf('$%.2f', $c - int($c) == 0.5 ? (int($c) + 1) / 100 : $_[0]); }
push @parts, dollars($rec->{costUsd}) if defined $rec->{costUsd} && !ref $rec->{costUsd};
print join(" \\xc2\\xb7 ", @parts), "\\n";
exit 0;
`;
}
