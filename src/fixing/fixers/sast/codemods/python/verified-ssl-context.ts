import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { replace } from '../edit-kit.ts';

// ssl._create_unverified_context() → ssl.create_default_context(); verify_mode = ssl.CERT_NONE →
// ssl.CERT_REQUIRED: connections to hosts with valid certificates work as before.

export const pythonVerifiedSslContext: Codemod = {
  name: 'python/verified-ssl-context',
  rules: ['python.ssl.tls.unverified-context'],
  rewrite({ node }) {
    const match = node!;
    if (kindOf(match) === 'call') return { edits: [replace(fieldOf(match, 'function')!, 'ssl.create_default_context')], note: 'Made the SSL context with ssl.create_default_context(), which verifies certificates and host names.' };
    const right = kindOf(match) === 'assignment' ? fieldOf(match, 'right') : null;
    if (right?.text() !== 'ssl.CERT_NONE') return refuse('the verification mode is not set to ssl.CERT_NONE here');
    return { edits: [replace(right, 'ssl.CERT_REQUIRED')], note: 'Required a valid certificate (ssl.CERT_REQUIRED); trust a private CA with load_verify_locations() if needed.' };
  },
};
