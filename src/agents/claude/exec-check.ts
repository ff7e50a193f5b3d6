/**
 * The check a Claude Code hook makes before its Perl script runs: Claude Code runs `perl -e LOADER
 * SHA256 FILE CODE ARGS…`; the loader reads FILE once, compares its sha256 with the digest teamux
 * recorded when it wrote the file (store/exec-folder.ts) and runs exactly the bytes it checked
 * (eval), so a script rewritten after that, or between the check and the run, is never run. On a
 * mismatch it says so on stderr and exits CODE: 2 for PreToolUse (Claude Code then refuses the tool:
 * the gate fails closed), 1 otherwise. The digest travels in the hook's command line, which lives in
 * the settings teamux passes to Claude Code. Pure text.
 */

/** The loader, one Perl line (no single quotes: it goes through sh -c inside a quoted word). */
export const VERIFIED_PERL_LOADER = [
  'my ($h, $f, $c) = splice(@ARGV, 0, 3);',
  'my $s = do { local $/; open(my $i, "<", $f) or do { print STDERR "teamux: cannot read $f: $!\\n"; exit $c }; <$i> };',
  'require Digest::SHA;',
  'if (Digest::SHA::sha256_hex($s) ne $h) { print STDERR "teamux: $f is not the script teamux wrote (it was changed since): refused to run it. Start the team again to rewrite it.\\n"; exit $c }',
  '$0 = $f; eval "#line 1 $f\\n" . $s; if ($@) { print STDERR $@; exit $c }',
].join(' ');

/** The argv that runs `script` (digest `sha256`) through the loader; `failCode` on a mismatch. */
export function verifiedPerl(perl: string, script: { file: string; sha256: string }, failCode: 1 | 2): string[] {
  return [perl, '-e', VERIFIED_PERL_LOADER, script.sha256, script.file, String(failCode)];
}
