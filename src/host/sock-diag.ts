/**
 * The kernel's answer to "which socket is the other end of this one", without a process per
 * question: one long-lived Perl helper (no modules) holds a NETLINK_SOCK_DIAG socket and, for each
 * inode written to its stdin, asks the kernel for that unix socket's peer (unix_diag, exact lookup
 * by inode with UDIAG_SHOW_PEER) and prints `INODE PEER` or `INODE ERR reason`. `ss` asks the same
 * thing, but spawning it (and its scan of every process's descriptors) costs ~100 ms on a loaded
 * machine; a question to the helper costs about a millisecond. This file owns the helper process,
 * the questions waiting for it and their deadlines.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** The helper: a unix_diag_req per line (nlmsghdr 16 bytes + unix_diag_req 24 bytes), native byte order. */
export const SOCK_DIAG_SCRIPT = `$| = 1;
# AF_NETLINK 16, SOCK_RAW 3, NETLINK_SOCK_DIAG 4; SOCK_DIAG_BY_FAMILY 20, NLM_F_REQUEST 1, AF_UNIX 1,
# UDIAG_SHOW_PEER 4, cookie ~0 (none), UNIX_DIAG_PEER attribute 2, NLMSG_ERROR 2.
socket(my $nl, 16, 3, 4) or do { print "0 ERR netlink: $!\\n"; exit 1 };
my $kernel = pack('S x2 L L', 16, 0, 0);
my $seq = 0;
while (my $line = <STDIN>) {
  chomp $line;
  my $ino = $line =~ /^(\\d{1,10})$/ ? $1 : 0;
  if (!$ino) { print "0 ERR bad inode\\n"; next; }
  $seq++;
  my $req = pack('L S S L L', 40, 20, 1, $seq, 0) . pack('C C S L L L L L', 1, 0, 0, 0xffffffff, $ino, 4, 0xffffffff, 0xffffffff);
  if (!send($nl, $req, 0, $kernel)) { print "$ino ERR send: $!\\n"; next; }
  my $answer;
  while (!defined $answer) {
    my $buf = '';
    if (!defined recv($nl, $buf, 65536, 0)) { $answer = "ERR recv: $!"; last; }
    my ($len, $type, $flags, $rseq) = unpack('L S S L', $buf);
    next if $rseq != $seq;
    if ($type == 2) { $answer = 'ERR errno ' . -unpack('l', substr($buf, 16, 4)); last; }
    if ($type != 20) { $answer = "ERR message type $type"; last; }
    my $off = 32;
    while ($off + 4 <= $len) {
      my ($alen, $atype) = unpack('S S', substr($buf, $off, 4));
      last if $alen < 4;
      $answer = unpack('L', substr($buf, $off + 4, 4)) if $atype == 2;
      $off += ($alen + 3) & ~3;
    }
    $answer //= 'ERR no peer';
  }
  print "$ino $answer\\n";
}
`;

/** How long one question may wait for the helper. */
export const DIAG_TIMEOUT_MS = 2_000;

interface Question {
  inode: number;
  answer: (a: { peer: number } | { error: string }) => void;
  timer: NodeJS.Timeout;
}

/** The helper, started on the first question and again after it died; `dispose` ends it. */
export class SockDiag {
  private child: ChildProcess | null = null;
  private readonly waiting: Question[] = [];
  private buffer = '';
  /** Why the helper cannot run (no perl, no netlink): then every question fails at once. */
  private broken: string | null = null;

  constructor(private readonly perl = 'perl') {}

  /** The inode of the peer of the unix socket `inode` (ours), or why it is not known. */
  peerOf(inode: number): Promise<{ peer: number } | { error: string }> {
    if (this.broken) return Promise.resolve({ error: this.broken });
    const child = this.child ?? this.start();
    return new Promise((resolve) => {
      const q: Question = {
        inode,
        answer: resolve,
        timer: setTimeout(() => {
          // A helper that stopped answering is replaced: the questions behind this one would wait on it too.
          this.fail(`the sock_diag helper did not answer within ${DIAG_TIMEOUT_MS / 1000}s`);
          this.stop();
        }, DIAG_TIMEOUT_MS),
      };
      this.waiting.push(q);
      child.stdin?.write(`${inode}\n`);
    });
  }

  /** Start the helper now, so the first question does not wait for Perl to start (~200 ms on a loaded machine). */
  warm(): void {
    if (!this.broken && !this.child) this.start();
  }

  /** End the helper; questions still waiting fail. */
  dispose(): void {
    this.broken = 'disposed';
    this.stop();
    this.fail('the sock_diag helper was stopped');
  }

  private start(): ChildProcess {
    const child = spawn(this.perl, ['-e', SOCK_DIAG_SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child = child;
    this.buffer = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.read(chunk));
    child.stdin?.on('error', () => undefined);
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') this.broken = `\`${this.perl}\` is not installed (teamux asks the kernel through a small Perl helper)`;
      this.fail(`the sock_diag helper could not run: ${err.message}`);
      if (this.child === child) this.child = null;
    });
    child.on('exit', () => {
      if (this.child === child) this.child = null;
      this.fail('the sock_diag helper exited');
    });
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    return child;
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const m = /^(\d+) (?:(\d+)|ERR (.*))$/.exec(line);
      if (m?.[1] === '0' && m[3]?.startsWith('netlink')) this.broken = `the kernel refused a sock_diag socket (${m[3]})`;
      const q = this.waiting.shift();
      if (!q) continue;
      clearTimeout(q.timer);
      if (m && Number(m[1]) === q.inode && m[2] !== undefined) q.answer({ peer: Number(m[2]) });
      else q.answer({ error: m?.[3] ? `sock_diag: ${m[3]}` : `the sock_diag helper said ${JSON.stringify(line.slice(0, 80))}` });
    }
  }

  private fail(why: string): void {
    for (const q of this.waiting.splice(0)) {
      clearTimeout(q.timer);
      q.answer({ error: why });
    }
  }

  private stop(): void {
    const child = this.child;
    this.child = null;
    child?.kill('SIGKILL');
  }
}
