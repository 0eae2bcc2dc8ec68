import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stand-ins for model providers on loopback: a plain HTTP server that answers POSTs to one path from a
 * script, non-streaming JSON, and records every request (headers and parsed body) for assertions.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface StubReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Waits this long before answering (the client may give up first). */
  delayMs?: number;
}

/** One scripted answer, or a function of the request (and its index) that makes one. */
export type StubTurn = StubReply | ((request: RecordedRequest, index: number) => StubReply | Promise<StubReply>);

export interface LlmStub {
  /** Base URL to configure, e.g. http://127.0.0.1:1234/v1 for the OpenAI stand-in. */
  url: string;
  requests: RecordedRequest[];
  /** Requests whose client went away before the answer was sent. */
  abandoned: number;
  close(): Promise<void>;
}

/**
 * `script` is either a list (request n gets entry n; past the end the stub answers 400 so the test fails
 * loudly) or one turn used for every request.
 */
export async function startLlmStub(options: { path: string; basePath?: string; script: StubTurn[] | StubTurn }): Promise<LlmStub> {
  const requests: RecordedRequest[] = [];
  const stub = { abandoned: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // kept as text
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      const index = requests.push(recorded) - 1;
      let reply: StubReply;
      if (req.method !== 'POST' || recorded.path.split('?')[0] !== options.path) {
        reply = { status: 404, body: { error: { message: `no route ${req.method} ${recorded.path}` } } };
      } else {
        const turn = Array.isArray(options.script) ? options.script[index] : options.script;
        if (!turn) reply = { status: 400, body: { error: { type: 'invalid_request_error', message: `stub script exhausted at request ${index + 1}` } } };
        else reply = typeof turn === 'function' ? await turn(recorded, index) : turn;
      }
      if (reply.delayMs) {
        const closed = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), reply.delayMs);
          res.once('close', () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        if (closed) {
          stub.abandoned++;
          return;
        }
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.basePath ?? ''}`,
    requests,
    get abandoned() {
      return stub.abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ScriptedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface StubUsage {
  input: number;
  output: number;
}

/** OpenAI Chat Completions wire format: `POST /v1/chat/completions`. */
export const openAiWire = {
  path: '/v1/chat/completions',
  basePath: '/v1',
  toolCalls(calls: ScriptedCall[], usage: StubUsage = { input: 100, output: 20 }, content: string | null = null): StubReply {
    return {
      body: {
        id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'stub-model',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            logprobs: null,
            message: {
              role: 'assistant',
              content,
              refusal: null,
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.args) },
              })),
            },
          },
        ],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
      },
    };
  },
  text(text: string, usage: StubUsage = { input: 100, output: 20 }): StubReply {
    return {
      body: {
        id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'stub-model',
        choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: text, refusal: null } }],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
      },
    };
  },
  error(status: number, message: string, type = 'invalid_request_error'): StubReply {
    return { status, body: { error: { message, type, param: null, code: null } } };
  },
};

/** Anthropic Messages wire format: `POST /v1/messages`. */
export const anthropicWire = {
  path: '/v1/messages',
  basePath: '',
  toolUse(calls: ScriptedCall[], usage: StubUsage = { input: 100, output: 20 }, text?: string): StubReply {
    return {
      body: {
        id: `msg_${Math.random().toString(36).slice(2)}`,
        type: 'message',
        role: 'assistant',
        model: 'stub-model',
        content: [
          ...(text ? [{ type: 'text', text }] : []),
          ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args })),
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      },
    };
  },
  text(text: string, usage: StubUsage = { input: 100, output: 20 }): StubReply {
    return {
      body: {
        id: `msg_${Math.random().toString(36).slice(2)}`,
        type: 'message',
        role: 'assistant',
        model: 'stub-model',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      },
    };
  },
  error(status: number, message: string, type = 'invalid_request_error'): StubReply {
    return { status, body: { type: 'error', error: { type, message } } };
  },
};
