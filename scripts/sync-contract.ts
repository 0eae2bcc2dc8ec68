// Copies the published contract (../shared/contract, or BULWARK_CONTRACT_DIR) into test/fixtures/contract,
// which the conformance test reads. Run it when the contract is republished, then commit the fixtures.
import fs from 'node:fs';
import { CONTRACT_FIXTURES_DIR, PUBLISHED_CONTRACT_DIR, syncContract } from '../test/support/contract.ts';

if (!fs.existsSync(PUBLISHED_CONTRACT_DIR)) {
  console.error(`No published contract at ${PUBLISHED_CONTRACT_DIR}; set BULWARK_CONTRACT_DIR to its folder.`);
  process.exit(2);
}
const changed = syncContract(PUBLISHED_CONTRACT_DIR, CONTRACT_FIXTURES_DIR);
console.log(changed.length ? `updated ${changed.join(', ')}` : 'the contract fixtures are up to date');
