import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../codehost/helpers.js';
import { guideSteps, matchOutput, onlyShownHeaders, withLearnedValues } from './guide.js';
import { stopProgram } from './program.js';

/**
 * docs/getting-started.md, run as a new user would: `npm start` on a fresh
 * data directory, then each shell block in one shell, in order, each output
 * held to the block the guide shows after it. What the reader does in the
 * browser (choosing root's own password) is done here over HTTP, as a form.
 */

const GUIDE = readFileSync('docs/getting-started.md', 'utf8');
const NEW_ROOT_PASSWORD = 'correct horse battery staple';

/** One bash for the whole guide, so variables set by one block serve the next. */
class Shell {
  private stdout = '';
  private stderr = '';
  private readonly process: ChildProcess;

  constructor(env: Record<string, string>) {
    this.process = spawn('bash', ['--noprofile', '--norc'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.process.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString();
    });
    this.process.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
  }

  async run(command: string): Promise<{ stdout: string; stderr: string }> {
    const marker = `__done_${Math.random().toString(36).slice(2)}__`;
    this.stdout = '';
    this.stderr = '';
    this.process.stdin?.write(`${command}\necho; echo ${marker}; echo ${marker} >&2\n`);
    for (let waited = 0; waited < 60_000; waited += 25) {
      if (this.stdout.includes(marker) && this.stderr.includes(marker)) {
        return {
          stdout: this.stdout.slice(0, this.stdout.indexOf(marker)).replace(/\n$/, ''),
          stderr: this.stderr.slice(0, this.stderr.indexOf(marker)),
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no end to: ${command}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
  }

  /** What the command running now has written to stderr so far. */
  get stderrSoFar(): string {
    return this.stderr;
  }

  close(): void {
    this.process.kill('SIGKILL');
  }
}

/** A form on a codehost page, sent as a browser would (session cookie, CSRF token). */
async function submitForm(
  base: string,
  cookies: Map<string, string>,
  page: string,
  action: string,
  fields: Record<string, string>,
): Promise<Response> {
  const request = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  const form = await (await request(page)).text();
  const csrf = /name="authenticity_token" value="([0-9a-f]+)"/.exec(form)?.[1] ?? '';
  return request(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ authenticity_token: csrf, ...fields }).toString(),
  });
}

describe('docs/getting-started.md, run as written', () => {
  let root: string;
  let server: ChildProcess | undefined;
  let shell: Shell;
  let serverOutput = '';
  const ports = { codehost: 0, refdata: 0 };
  /** The guide's ports 8080 and 8081 as this run's. */
  const onThesePorts = (text: string) =>
    text.replace(
      /(:|%3A)808([01])\b/g,
      (_, colon: string, which: string) =>
        `${colon}${which === '0' ? ports.codehost : ports.refdata}`,
    );

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'chrd-guide-'));
    ports.codehost = await freePort();
    ports.refdata = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? root,
      // refdata-login keeps a reader's tokens there: in this run's directory, not the home's.
      XDG_CONFIG_HOME: join(root, 'config'),
      DATA_DIR: join(root, 'data'),
      CODEHOST_PORT: String(ports.codehost),
      REFDATA_PORT: String(ports.refdata),
      // Only the ports, as the README and the guide tell a reader to choose them: the
      // public addresses (and so the IRIs) follow by default.
    };
    // `npm start`, in its own process group so that stopping it stops the server too.
    // As the reader types it: npm's own lines and the build's are part of what the guide shows.
    server = spawn('npm', ['start'], { env, detached: true, stdio: 'pipe' });
    server.stdout?.on('data', (chunk: Buffer) => {
      serverOutput += chunk.toString();
    });
    server.stderr?.on('data', (chunk: Buffer) => {
      serverOutput += chunk.toString();
    });
    for (let waited = 0; !serverOutput.includes('refdata API token'); waited += 100) {
      if (waited > 120_000) throw new Error(`npm start did not come up: ${serverOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    shell = new Shell(env);
  }, 180_000);

  afterAll(async () => {
    shell?.close();
    await stopProgram(server);
    // npm may exit before the program it ran has closed its last files: retried while the
    // directory is still being written.
    rmSync(root, { recursive: true, force: true, maxRetries: 50, retryDelay: 100 });
  }, 60_000);

  it('prints what the guide shows, step by step', async () => {
    const steps = guideSteps(GUIDE);
    expect(steps.length).toBeGreaterThan(10);
    const known = new Map<string, string>();
    let passwordChosen = false;
    let ritaPassword = '';
    const approveAsRita = async (said: () => string, password: string) => {
      let code: string | undefined;
      for (let waited = 0; code === undefined; waited += 100) {
        if (waited > 60_000) throw new Error(`no code shown: ${said()}`);
        code = /shows the code ([A-Z]{4}-[A-Z]{4})/.exec(said())?.[1];
        if (code === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const base = `http://127.0.0.1:${ports.codehost}`;
      const cookies = new Map<string, string>();
      await submitForm(base, cookies, '/users/sign_in', '/users/sign_in', {
        login: 'rita',
        password,
      });
      const chosen = await submitForm(
        base,
        cookies,
        '/profile/password/edit',
        '/profile/password',
        {
          current_password: password,
          new_password: 'rita chooses her own password',
          password_confirmation: 'rita chooses her own password',
        },
      );
      expect(chosen.status).toBe(303);
      const entered = await submitForm(base, cookies, '/oauth/device', '/oauth/device', {
        user_code: code,
      });
      expect(entered.headers.get('location')).toBe('/oauth/device/confirm');
      const decided = await submitForm(
        base,
        cookies,
        '/oauth/device/confirm',
        '/oauth/device/decision',
        { user_code: code, decision: 'approve' },
      );
      expect(decided.status).toBeLessThan(400);
    };
    for (const step of steps) {
      const expected = step.expected === undefined ? undefined : onThesePorts(step.expected);
      if (step.command.trim() === 'npm install && npm start') {
        // Started above; the start-up lines as shown, in order. The build's line is
        // printed only when a source changed since the last build (always on a fresh clone).
        const printedLines = serverOutput.split('\n').filter((line) => line.trim() !== '');
        let at = 0;
        for (const line of (expected ?? '').split('\n')) {
          const found = printedLines.findIndex(
            (candidate, index) => index >= at && matchOutput(line, candidate, known),
          );
          if (found === -1 && line.startsWith('Compiling src/ into dist/')) continue;
          expect(found, `start-up line: ${line}\nprinted:\n${serverOutput}`).toBeGreaterThanOrEqual(
            0,
          );
          at = found + 1;
        }
        continue;
      }
      // Every command reaches the services through $CODEHOST and $REFDATA, set once.
      if (!/^CODEHOST=\S+ REFDATA=\S+$/.test(step.command.trim())) {
        expect(step.command, 'a command that names a port').not.toMatch(/808[01]/);
      }
      if (step.section.startsWith('2.') && !passwordChosen) {
        // The reader signs in as root with the generated password and chooses one.
        const initial = readFileSync(join(root, 'data', 'codehost-initial-root-password'), 'utf8');
        const base = `http://127.0.0.1:${ports.codehost}`;
        const cookies = new Map<string, string>();
        const signedIn = await submitForm(base, cookies, '/users/sign_in', '/users/sign_in', {
          login: 'root',
          password: initial.trim(),
        });
        expect(signedIn.headers.get('location')).toMatch(/\/profile\/password\/edit$/);
        const changed = await submitForm(
          base,
          cookies,
          '/profile/password/edit',
          '/profile/password',
          {
            current_password: initial.trim(),
            new_password: NEW_ROOT_PASSWORD,
            password_confirmation: NEW_ROOT_PASSWORD,
          },
        );
        // Nothing interrupted (root signed in directly): on to the profile, which says so.
        expect(changed.status).toBe(303);
        expect(changed.headers.get('location')).toBe('/profile?done=password_changed');
        passwordChosen = true;
      }
      const command = withLearnedValues(onThesePorts(step.command), known);
      const running = shell.run(command);
      if (command.includes('refdata-login')) {
        // Rita, in her browser: signs in, chooses her password, approves the code shown.
        await approveAsRita(() => shell.stderrSoFar, ritaPassword);
      }
      const { stdout, stderr } = await running;
      ritaPassword = /Password: (\S+)/.exec(stdout)?.[1] ?? ritaPassword;
      if (expected === undefined) {
        expect(stderr, command).toBe('');
        continue;
      }
      // A command whose output went into a variable shows what it said on stderr.
      const printed = stdout.trim() === '' ? stderr : onlyShownHeaders(expected, stdout);
      const learned = matchOutput(expected, printed, known);
      expect(
        learned,
        `${command}\n--- the guide shows:\n${expected}\n--- printed:\n${printed}`,
      ).toBeDefined();
      for (const [shown, actual] of learned ?? []) known.set(shown, actual);
    }
  }, 180_000);
});
