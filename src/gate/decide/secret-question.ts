import { isCredentialLike } from "../../util/secret-env.js";

// Questions never ask for secrets (the MCP and ACP specs forbid collecting them in forms, and a
// prompt-injected model would use a question to fish for them). One judge for ask_user and for the
// forms MCP servers relay, on everything the user would read or type into: the question or message,
// every field's name, title and description, and the kind of value a field asks for. Secrets are
// recognised by what they are, not by one spelling: the nouns (password, passphrase, token, API or
// access key, private or SSH key, credentials, recovery code, ...), variable names that hold them
// (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN: the credential-name check of util/secret-env), and key files
// (~/.ssh/id_ed25519, *.pem, .aws/credentials, .netrc, ...).

const SECRET_NOUNS = new RegExp(
  [
    "pass(word|phrase|code)s?",
    "pin (code|number)s?",
    "(api|access|secret|private|signing|ssh|gpg|pgp|deploy|license|encryption|master)[ _-]?keys?",
    "(access|auth|bearer|refresh|session|api|personal[ _-]access|id|oauth|github|npm|pypi|slack)[ _-]?tokens?",
    "secrets?",
    "credentials?",
    "creds",
    "(one[ -]time|verification|recovery|backup|2fa|mfa|otp|totp|security) ?codes?",
    "otp",
    "2fa",
    "(seed|recovery|mnemonic) (phrase|words)",
    "mnemonic",
    "credit[ _-]?card( number)?",
    "card number",
    "cvv",
    "cvc",
    "ssn",
    "social security( number)?",
    "session cookies?",
    "connection string",
    "dsn",
  ]
    .map((noun) => `\\b${noun}\\b`)
    .join("|"),
  "i",
);

/** Files that are secrets by their name or place. */
const KEY_FILES =
  /(~|\$HOME|\/home\/[^/\s]+|\/root)?\/\.(ssh|gnupg|aws|azure|kube|docker|config\/gcloud)\b|\bid_(rsa|dsa|ecdsa|ed25519)(_sk)?\b|\.(pem|p12|pfx|key|keystore|jks|ppk|kdbx)\b|\.netrc\b|\.pgpass\b|\.npmrc\b|\.pypirc\b|\bcredentials\.json\b|\.env\b/i;

const ASKING =
  /\b(what|which|enter|provide|give|type|paste|share|send|tell|input|supply|upload|copy|reveal|show|need|let me know|fill in|read out)\b/i;

/** Names of variables that hold secrets: upper case with an underscore, credential-like. */
function secretVariable(text: string): string | undefined {
  return text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)?.find((name) => isCredentialLike(name));
}

/** What in `text` names a secret ("AWS_SECRET_ACCESS_KEY", "~/.ssh/id_ed25519", "credentials"), or undefined. */
export function secretNamedIn(text: string): string | undefined {
  return secretVariable(text) ?? text.match(KEY_FILES)?.[0] ?? text.match(SECRET_NOUNS)?.[0];
}

/** Why an ask_user question asks for a secret, or undefined: it names one and asks for an answer. */
export function secretInQuestion(question: string, options: readonly string[] = []): string | undefined {
  const named = secretNamedIn(question) ?? options.map(secretNamedIn).find(Boolean);
  if (!named) return undefined;
  // Naming a secret in a choice between fixed options ("Rotate the API key?" Yes / No) asks for none.
  const freeText = options.length === 0;
  return freeText || ASKING.test(question) ? `it asks about "${named}"` : undefined;
}

type FieldSchema = {
  type?: unknown;
  title?: unknown;
  description?: unknown;
  format?: unknown;
  enum?: unknown;
  oneOf?: unknown;
  writeOnly?: unknown;
  contentMediaType?: unknown;
};

/**
 * Why a form (an MCP server's elicitation) asks for a secret, or undefined: a field whose name,
 * title or description names one, a field asking for a password-kind value, or a message naming
 * one over a field where anything can be typed.
 */
export function secretInForm(message: string, schema: Record<string, unknown>): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, FieldSchema | undefined>;
  let freeText = false;
  for (const [name, field] of Object.entries(properties)) {
    const texts = [name.replace(/[_-]+/g, " "), name, field?.title, field?.description].filter(
      (t): t is string => typeof t === "string",
    );
    const named = texts.map(secretNamedIn).find(Boolean);
    if (named) return `its field "${name}" asks for "${named}"`;
    const kind = [field?.format, field?.contentMediaType].filter((t) => typeof t === "string").join(" ");
    if (field?.writeOnly === true || /password|secret|pem|pkcs|x-x509|pgp-keys/i.test(kind))
      return `its field "${name}" asks for a ${kind || "write-only"} value`;
    const choice = Array.isArray(field?.enum) || Array.isArray(field?.oneOf);
    if ((field?.type === "string" || field?.type === undefined) && !choice) freeText = true;
  }
  const named = secretNamedIn(message);
  return named && freeText ? `its message asks for "${named}"` : undefined;
}
