// A process that checks out a repository and then waits to be killed, leaving its work tree behind.
// Usage: node checkout-holder.ts <cache root> <local repository path> <work id>
import { CheckoutCache } from '../../src/scm/checkout-cache.ts';

const [root, repoDir, workId] = process.argv.slice(2) as [string, string, string];
const cache = new CheckoutCache({ root, allowLocal: true, localRoot: '/', timeoutMs: 30_000 });
const checkout = await cache.checkout({ id: 'held', provider: 'github', cloneUrl: `file://${repoDir}`, token: null }, 'main', workId);
process.stdout.write(`${checkout.dir}\n`);
setInterval(() => {}, 60_000);
