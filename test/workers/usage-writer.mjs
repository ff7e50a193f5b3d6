// A real child process appending COUNT usage records (TOKENS input tokens each, priced at USD) to
// MEMBER's usage log through the store (dist/), as teamux's agent does after each model call. It
// prints "done".
import { TeamStore } from '../../dist/store/team.js';
import { recordUsage } from '../../dist/store/usage.js';

const [dir, member, countArg, tokensArg, usdArg] = process.argv.slice(2);
const opened = await TeamStore.open(dir, member);
if (!opened.ok) throw new Error(opened.error.message);
for (let i = 0; i < Number(countArg); i++) {
  const usd = usdArg === undefined || usdArg === 'null' ? null : Number(usdArg);
  await recordUsage(opened.store.paths, member, { time: new Date().toISOString(), model: 'claude-sonnet-5', input: Number(tokensArg), output: 0, cacheRead: 0, cacheWrite: 0, usd });
}
process.stdout.write('done\n');
