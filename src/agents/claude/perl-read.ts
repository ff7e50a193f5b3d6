/**
 * The Perl form of the store's one reader of team files (store/read-regular.cts), for the fast hooks
 * teamux generates in Perl (hook-perl.ts, stop-perl.ts): opened O_NOFOLLOW | O_NONBLOCK, a regular
 * file only, and no more than the cap of its kind, the numbers taken from READ_CAPS so the two forms
 * cannot drift. A file it refuses reads as '' and the fast path hands the call to node, whose store
 * refuses it with a message that names the file. Pure text.
 */
import { READ_CAPS } from '../../store/read-regular.cjs';

/** Perl source defining `slurp($file, $kind)`, $kind one of READ_CAPS' keys. */
export function perlSlurp(): string {
  const caps = Object.entries(READ_CAPS).map(([k, v]) => `${k} => ${v}`).join(', ');
  return `use Fcntl qw(O_RDONLY O_NOFOLLOW O_NONBLOCK);
# A team file as the store reads it (src/store/read-regular.cts): no link, no FIFO, at most its cap; '' otherwise.
my %READ_CAP = (${caps});
sub slurp {
  my ($f, $kind) = @_;
  my $cap = $READ_CAP{$kind};
  sysopen(my $h, $f, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) or return '';
  my $size = -s $h;
  unless (-f $h && (!defined $size || $size <= $cap)) { close $h; return ''; }
  my $t = '';
  while (sysread($h, $t, $cap + 1 - length($t), length($t))) { last if length($t) > $cap; }
  close $h;
  return length($t) > $cap ? '' : $t;
}
`;
}
