/**
 * A unix-socket server listening at a path, replacing a stale socket file a crashed process left
 * there. Shared by the sockets teamux serves to its panes (the tmux stand-in's, the enrolment socket).
 */
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';

/** Listen at `socket` (a stale file there is removed first); resolves once listening. */
export async function listenUnix(socket: string, onConnection: (s: Socket) => void): Promise<Server> {
  rmSync(socket, { force: true });
  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
