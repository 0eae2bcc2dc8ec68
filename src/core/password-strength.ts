// What a password must be to be set here, judged in one place for every way a password is set (the CLI's
// `user create` today, through createUser). Length alone lets `aaaaaaaaaaaa` and `Password1234` through;
// these checks refuse what a guesser tries first: few distinct characters, a repeated or sequential run,
// and the most common passwords and their usual decorations (capitals, digits and symbols around a word).

export const MIN_PASSWORD_LENGTH = 12;
/** scrypt reads the whole password: a bound keeps one sign-in from costing more than any other. */
export const MAX_PASSWORD_LENGTH = 1024;
const MIN_DISTINCT_CHARACTERS = 6;

/** Words, keyboard rows and runs a guesser tries first; matched once capitals, digits and symbols are stripped. */
const COMMON = new Set([
  'password', 'passwort', 'passwd', 'passw', 'pass', 'secret', 'letmein', 'welcome', 'admin', 'administrator', 'root',
  'login', 'changeme', 'default', 'master', 'iloveyou', 'loveyou', 'trustno', 'monkey', 'dragon', 'shadow', 'sunshine',
  'princess', 'football', 'baseball', 'soccer', 'superman', 'batman', 'michael', 'jordan', 'qwerty', 'qwertyuiop',
  'qwertz', 'azerty', 'asdf', 'asdfgh', 'asdfghjkl', 'zxcvbn', 'zxcvbnm', 'qazwsx', 'abc', 'abcdef', 'abcd', 'test',
  'testing', 'guest', 'user', 'hello', 'freedom', 'whatever', 'summer', 'winter', 'spring', 'autumn', 'bulwark',
  'security', 'company', 'computer', 'internet', 'starwars', 'pokemon', 'blink', 'mustang', 'access', 'flower',
  'hunter', 'killer', 'charlie', 'donald', 'ninja', 'qwe', 'qweasd', 'qweasdzxc', 'zaq', 'xsw',
]);

/** Whole passwords too common to be decorated words: keyboard walks with digits mixed in. */
const COMMON_WHOLE = new Set(['1q2w3e4r5t6y', '1qaz2wsx3edc', 'qwerty123456', '123qweasdzxc', 'q1w2e3r4t5y6', 'zaq12wsxcde3', '1234qwerasdf']);

/** Digits and symbols written for letters (`p@ssw0rd`), read as letters when they stand between two. */
const LEET: Record<string, string> = { '@': 'a', '4': 'a', '$': 's', '5': 's', '0': 'o', '1': 'i', '!': 'i', '3': 'e', '7': 't' };
const LEET_INSIDE_A_WORD = /(?<=\p{L})[@4$501!37](?=\p{L})/gu;

/** Whether the text is a shorter unit written again and again (`abcabcabcabc`, `aaaa…`). */
function repeatsAUnit(text: string): boolean {
  for (let unit = 1; unit <= text.length / 2; unit++) {
    if (text.length % unit === 0 && text.slice(0, unit).repeat(text.length / unit) === text) return true;
  }
  return false;
}

/** Whether most neighbouring characters are equal or next to each other (`abcdefghijkl`, `987654321098`, `aaaabbbbcccc`). */
function mostlySequential(text: string): boolean {
  let steps = 0;
  for (let i = 1; i < text.length; i++) if (Math.abs(text.charCodeAt(i) - text.charCodeAt(i - 1)) <= 1) steps++;
  return steps >= 0.75 * (text.length - 1);
}

/**
 * Why the password cannot be used, or null when it can. `email` lets a password made of the account's
 * own name (`alice2026!!!` for alice@…) be refused too.
 */
export function passwordProblem(password: string, email?: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `the password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `the password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  const advice = 'choose a passphrase of several unrelated words';
  if (new Set(lower).size < MIN_DISTINCT_CHARACTERS) return `the password has fewer than ${MIN_DISTINCT_CHARACTERS} different characters; ${advice}`;
  if (repeatsAUnit(lower) || mostlySequential(lower)) return `the password is a repeated or sequential pattern; ${advice}`;
  const word = lower.replace(LEET_INSIDE_A_WORD, (c) => LEET[c]!).replace(/[^\p{L}]/gu, '');
  const name = email?.split('@')[0]?.toLowerCase().replace(/[^\p{L}]/gu, '');
  if (COMMON_WHOLE.has(lower) || COMMON.has(word) || repeatsAUnit(word) || (name && word === name)) {
    return `the password is one of the most common passwords, or one with digits or symbols added; ${advice}`;
  }
  return null;
}
