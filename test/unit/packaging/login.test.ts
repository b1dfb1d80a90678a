import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../../src/cli/args/args.js";
import { credentialsPath, runLogin, runLogout, type LoginOptions } from "../../../src/cli/subcommands/login.js";
import { createTerminalPrompter } from "../../../src/cli/subcommands/terminal-prompter.js";

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "deep-acp-login-"));
  temps.push(home);
  return home;
}

/** A stand-in for a terminal: records raw-mode switches; what the user types is pushed with `type`. */
function fakeTerminal() {
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    rawModes: [] as boolean[],
    setRawMode(mode: boolean) {
      input.rawModes.push(mode);
      return input;
    },
  });
  let shown = "";
  const output = new PassThrough();
  output.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
  return { input, output, shown: () => shown, type: (text: string) => void input.write(text) };
}

function piped(answers: string) {
  const input = new PassThrough();
  input.end(answers);
  let shown = "";
  const output = new PassThrough();
  output.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
  return { prompter: createTerminalPrompter(input, output), shown: () => shown };
}

/** A fetch that answers the model list like a provider: 401 for "bad-key", else two models. */
function providerFetch(seen: Array<{ url: string; headers: Record<string, string> }> = []): typeof fetch {
  return (async (url: string | URL, init?: RequestInit) => {
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>));
    seen.push({ url: String(url), headers });
    const key = headers["x-api-key"] ?? headers.authorization?.replace(/^Bearer /, "");
    if (key === "bad-key") return new Response(JSON.stringify({ error: { message: "invalid key" } }), { status: 401 });
    return Response.json({ data: [{ id: "model-a" }, { id: "model-b" }] });
  }) as typeof fetch;
}

const LOGIN = parseCliArgs(["login"]);

async function login(answers: string, options: Omit<LoginOptions, "prompter">) {
  const io = piped(answers);
  const code = await runLogin(LOGIN, { env: {}, fetch: providerFetch(), ...options, prompter: io.prompter });
  return { code, shown: io.shown() };
}

async function stored(home: string): Promise<unknown> {
  return JSON.parse(await readFile(credentialsPath(home), "utf8"));
}

describe("terminal prompter", () => {
  it("reads a secret in raw mode without echoing it, honouring backspace and ignoring arrow keys", async () => {
    const term = fakeTerminal();
    const prompter = createTerminalPrompter(term.input, term.output);
    const answer = prompter.ask("API key: ", { secret: true });
    term.type("sk-secX\x7f");
    term.type("ret\x1b[D-key\r");
    expect(await answer).toBe("sk-secret-key");
    expect(term.input.rawModes).toEqual([true, false]);
    expect(term.shown()).toBe("API key: \n");
    prompter.close();
  });

  it("rejects a secret question on Ctrl-C and leaves raw mode", async () => {
    const term = fakeTerminal();
    const prompter = createTerminalPrompter(term.input, term.output);
    const answer = prompter.ask("API key: ", { secret: true });
    term.type("sk-\x03");
    await expect(answer).rejects.toMatchObject({ name: "LoginCancelled" });
    expect(term.input.rawModes).toEqual([true, false]);
    prompter.close();
  });

  it("hands piped answers out one line at a time, even when they arrive in one chunk", async () => {
    const io = piped("first\r\nsecond\nlast-without-newline");
    expect(await io.prompter.ask("1? ")).toBe("first");
    expect(await io.prompter.ask("2? ", { secret: true })).toBe("second");
    expect(await io.prompter.ask("3? ")).toBe("last-without-newline");
    expect(await io.prompter.ask("4? ")).toBeUndefined();
    expect(io.shown()).toBe("1? \n2? \n3? \n4? \n");
    io.prompter.close();
  });
});

describe("deep-acp login", () => {
  it("stores a checked key 0600 in a 0700 directory, next to other providers' keys", async () => {
    const home = await tempHome();
    await mkdir(join(home, ".deepagents", ".state"), { recursive: true, mode: 0o755 });
    await writeFile(
      credentialsPath(home),
      JSON.stringify({ openai: { apiKey: "sk-openai", baseUrl: "http://proxy.invalid/v1" } }),
    );
    const seen: Array<{ url: string; headers: Record<string, string> }> = [];
    const { code, shown } = await login("anthropic\nsk-ant-new\n", {
      home,
      fetch: providerFetch(seen),
      env: { ANTHROPIC_BASE_URL: "http://models.invalid/v1/" },
    });
    expect(code).toBe(0);
    expect(seen).toEqual([
      {
        url: "http://models.invalid/v1/models",
        headers: { "x-api-key": "sk-ant-new", "anthropic-version": "2023-06-01" },
      },
    ]);
    expect(await stored(home)).toEqual({
      openai: { apiKey: "sk-openai", baseUrl: "http://proxy.invalid/v1" },
      anthropic: { apiKey: "sk-ant-new" },
    });
    expect((await stat(credentialsPath(home))).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, ".deepagents", ".state"))).mode & 0o777).toBe(0o700);
    expect(shown).toContain("The key works.");
    expect(shown).not.toContain("sk-ant-new");
  });

  it("keeps a stored base URL when replacing a key, and checks the key against it", async () => {
    const home = await tempHome();
    await mkdir(join(home, ".deepagents", ".state"), { recursive: true });
    await writeFile(
      credentialsPath(home),
      JSON.stringify({ openai: { apiKey: "sk-one", baseUrl: "http://gateway.invalid/v1" } }),
    );
    const seen: Array<{ url: string; headers: Record<string, string> }> = [];
    expect((await login("openai\nsk-two\n", { home, fetch: providerFetch(seen) })).code).toBe(0);
    expect(seen.map((s) => s.url)).toEqual(["http://gateway.invalid/v1/models"]);
    expect(seen[0]!.headers.authorization).toBe("Bearer sk-two");
    expect(await stored(home)).toEqual({ openai: { apiKey: "sk-two", baseUrl: "http://gateway.invalid/v1" } });
  });

  it("stores nothing when the provider rejects the key, or no key or an unknown provider is given", async () => {
    const home = await tempHome();
    const rejected = await login("1\nbad-key\n", { home });
    expect(rejected.code).toBe(1);
    expect(rejected.shown).toMatch(/rejected the key \(HTTP 401\); nothing stored/);
    expect((await login("1\n\n", { home })).code).toBe(1);
    expect((await login("1\n", { home })).code).toBe(1);
    const unknown = await login("gemini\nkey\n", { home });
    expect(unknown.code).toBe(1);
    expect(unknown.shown).toContain('Unknown provider "gemini"');
    await expect(stat(credentialsPath(home))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("stores an unchecked key when the provider cannot be reached, saying so", async () => {
    const home = await tempHome();
    const offline = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch;
    const { code, shown } = await login("1\nsk-offline\n", { home, fetch: offline });
    expect(code).toBe(0);
    expect(shown).toContain(
      "Could not check the key at https://api.anthropic.com/v1/models (fetch failed); storing it anyway.",
    );
    expect(await stored(home)).toEqual({ anthropic: { apiKey: "sk-offline" } });
  });

  it("sets up an OpenAI-compatible server, offering the first model the server lists", async () => {
    const home = await tempHome();
    const { code, shown } = await login("3\nhttp://127.0.0.1:8000/v1\n\n\n", { home });
    expect(code).toBe(0);
    expect(shown).toContain("the server lists model-a, model-b");
    expect(await stored(home)).toEqual({
      "openai-compatible": { baseUrl: "http://127.0.0.1:8000/v1", model: "model-a" },
    });
    expect((await login("openai-compatible\nnot a url\n", { home })).code).toBe(1);
  });

  it("refuses to overwrite a credentials file it cannot read, leaving it as it was", async () => {
    const home = await tempHome();
    await mkdir(join(home, ".deepagents", ".state"), { recursive: true });
    await writeFile(credentialsPath(home), "{ not json");
    const { code, shown } = await login("1\nsk-new\n", { home });
    expect(code).toBe(1);
    expect(shown).toContain("is not a valid credentials file");
    expect(await readFile(credentialsPath(home), "utf8")).toBe("{ not json");
  });

  it("says when an environment variable overrides the stored key", async () => {
    const home = await tempHome();
    const { code, shown } = await login("1\nsk-stored\n", { home, env: { ANTHROPIC_API_KEY: "sk-env" } });
    expect(code).toBe(0);
    expect(shown).toContain("ANTHROPIC_API_KEY is set in this environment and takes precedence");
  });

  it("exits 130 and stores nothing when the user presses Ctrl-C at the key prompt", async () => {
    const home = await tempHome();
    const term = fakeTerminal();
    const done = runLogin(LOGIN, {
      home,
      env: {},
      fetch: providerFetch(),
      prompter: createTerminalPrompter(term.input, term.output),
    });
    term.type("1\n");
    await new Promise<void>((resolve) =>
      term.output.on("data", () => term.shown().includes("input hidden") && resolve()),
    );
    term.type("sk-half\x03");
    expect(await done).toBe(130);
    expect(term.shown()).toContain("Cancelled; nothing stored.");
    await expect(stat(credentialsPath(home))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("deep-acp logout", () => {
  it("deletes the stored keys and names the key variables still set", async () => {
    const home = await tempHome();
    await login("1\nsk-stored\n", { home });
    let said = "";
    const code = await runLogout(parseCliArgs(["logout"]), {
      home,
      env: { OPENAI_API_KEY: "sk-env" },
      say: (t) => (said += t),
    });
    expect(code).toBe(0);
    await expect(stat(credentialsPath(home))).rejects.toMatchObject({ code: "ENOENT" });
    expect(said).toContain(`Removed ${credentialsPath(home)}`);
    expect(said).toContain("Still set in this environment: OPENAI_API_KEY.");
    said = "";
    expect(await runLogout(parseCliArgs(["logout"]), { home, env: {}, say: (t) => (said += t) })).toBe(0);
    expect(said).toContain("No stored keys");
    expect(await runLogout(parseCliArgs(["logout", "anthropic"]), { home, env: {}, say: () => undefined })).toBe(2);
  });
});
