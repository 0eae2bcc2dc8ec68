import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkJsSources } from '../../src/scanning/deep/application-checks.ts';
import { buildJsProgram } from '../../src/scanning/deep/js-program.ts';
import { DeepEngine } from '../../src/scanning/deep/deep-engine.ts';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';

/** The whole-application findings of a JavaScript/TypeScript project given as files, as `check@path:line`. */
async function check(files: Record<string, string>, hotspots: Record<string, number[]> = {}): Promise<string[]> {
  const { findings } = await checkJsSources(Object.entries(files).map(([path, text]) => ({ path, text })), hotspots);
  return findings.map((f) => `${f.checkId.replace('javascript.deep.', '')}@${f.path}:${f.startLine}`);
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const expressApp = (extra: string[] = []) =>
  lines(
    "const express = require('express');",
    ...extra,
    'const app = express();',
    "app.post('/login', async (req, res) => {",
    '  const user = await User.findOne({ email: req.body.email });',
    '  if (!user || !(await bcrypt.compare(req.body.password, user.hash))) return res.status(401).end();',
    '  req.session.userId = user.id;',
    "  res.redirect('/');",
    '});',
    "app.get('/notes/:id', requireLogin, async (req, res) => {",
    '  const note = await Note.findById(req.params.id);',
    '  res.json(note);',
    '});',
    "app.delete('/notes/:id', async (req, res) => {",
    '  await Note.deleteOne({ _id: req.params.id });',
    '  res.status(204).end();',
    '});',
    "app.get('/about', (req, res) => res.send('about'));",
    "app.get('/export', requireLogin, async (req, res) => {",
    '  try {',
    '    res.send(await exportAll());',
    '  } catch (err) {',
    '    res.status(500).send(err.stack);',
    '  }',
    '});',
  );

describe('whole-application checks (JavaScript/TypeScript)', () => {
  test('Express: sign-in without a limiter, an unguarded route with effects, a record by id without ownership, error details', async () => {
    assert.deepEqual(await check({ 'server.js': expressApp() }), [
      'auth.login-without-attempt-limit@server.js:5',
      'authz.object-by-id-without-ownership@server.js:10',
      'auth.missing-authentication@server.js:13',
      'errors.error-details-to-client@server.js:22',
    ]);
    const limited = await check({ 'server.js': expressApp(["const rateLimit = require('express-rate-limit');"]) });
    assert.ok(!limited.some((f) => f.startsWith('auth.login-without')), 'a rate limiter in the application');
  });

  test('an open route that only reads is no missing authentication, even with an injection finding in it; one running a command is', async () => {
    const app = expressApp().replace(
      "app.get('/about', (req, res) => res.send('about'));",
      lines(
        "app.get('/orders', async (req, res) => {",
        "  const rows = await db.query('SELECT * FROM orders WHERE item = ' + req.query.item);",
        '  res.json(rows);',
        '});',
        "app.get('/diagnose', (req, res) => {",
        "  require('child_process').exec('ping -c 1 ' + req.query.host, (e, out) => res.send(out));",
        '});',
      ),
    );
    const found = await check({ 'server.js': app }, { 'server.js': [18, 22] });
    assert.ok(!found.includes('auth.missing-authentication@server.js:17'), found.join('\n'));
    assert.ok(found.includes('auth.missing-authentication@server.js:21'), found.join('\n'));
  });

  test('a guard on the router or the whole app covers its routes', async () => {
    const guarded = expressApp().replace('const app = express();', "const app = express();\napp.use(passport.authenticate('session'));");
    const found = await check({ 'server.js': guarded });
    assert.ok(!found.some((f) => f.startsWith('auth.missing-authentication')), found.join('\n'));
  });

  test('the record lookup scoped to the caller, or checked after, is not reported', async () => {
    const scoped = expressApp().replace('Note.findById(req.params.id)', 'Note.findOne({ _id: req.params.id, owner: req.user.id })');
    assert.ok(!(await check({ 'server.js': scoped })).some((f) => f.startsWith('authz.')));
    const checked = expressApp().replace('  res.json(note);', '  if (note.owner !== req.user.id) return res.status(404).end();\n  res.json(note);');
    assert.ok(!(await check({ 'server.js': checked })).some((f) => f.startsWith('authz.')));
  });

  test('NestJS controllers: a method without a guard in a controller that has guarded ones', async () => {
    const controller = lines(
      "import { Controller, Get, Post, Delete, Param, UseGuards } from '@nestjs/common';",
      '@Controller("accounts")',
      'export class AccountsController {',
      '  @UseGuards(JwtAuthGuard)',
      '  @Get(":id")',
      '  find(@Param("id") id: string) {',
      '    return this.accounts.findOne(id);',
      '  }',
      '  @Delete(":id")',
      '  remove(@Param("id") id: string) {',
      '    return this.accounts.remove(id);',
      '  }',
      '}',
    );
    // The guarded lookup hands the path's id to the service with nothing about the caller: an ownership candidate.
    assert.deepEqual(await check({ 'src/accounts.controller.ts': controller }), [
      'authz.object-by-id-without-ownership@src/accounts.controller.ts:7',
      'auth.missing-authentication@src/accounts.controller.ts:10',
    ]);
  });

  test('regular expressions with nested repetition, as literals and built from strings', async () => {
    const code = lines("const EMAIL = /^([a-z0-9]+\\.?)+@example\\.com$/;", 'const NAME = new RegExp("^(\\\\w+\\\\s?)*$");', 'const OK = /^[a-z]+$/;');
    assert.deepEqual(await check({ 'validate.js': code }), ['dos.catastrophic-regex@validate.js:1', 'dos.catastrophic-regex@validate.js:2']);
    // a script of the web root runs in the visitor's browser, not in the server
    assert.deepEqual(await check({ 'public/js/validate.js': code }), []);
  });

  test('request data followed into an imported module: a wrapper the file alone does not report is a finding, with its path', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-deep-js-'));
    try {
      fs.mkdirSync(path.join(dir, 'lib'));
      fs.writeFileSync(
        path.join(dir, 'routes.js'),
        lines("const express = require('express');", "const { run } = require('./lib/shell');", 'const app = express();', "app.get('/lookup', (req, res) => {", "  res.send(run('nslookup ' + req.query.host));", '});'),
      );
      fs.writeFileSync(
        path.join(dir, 'lib', 'shell.js'),
        lines("const { execSync } = require('child_process');", 'function run(command) {', '  return execSync(command).toString();', '}', 'module.exports = { run };'),
      );
      const input = { dir, fingerprintKey: Buffer.alloc(32, 1) };
      const sast = await new SastEngine({ pool: null }).scan(input);
      assert.ok(!sast.some((f) => f.filePath === 'lib/shell.js'), 'on its own, run() is a wrapper that passes its parameter to a shell');
      const deep = await new DeepEngine(new SastEngine({ pool: null }), { pool: null }).scan(input);
      const crossing = deep.filter((f) => f.metadata.flow);
      assert.deepEqual(
        crossing.map((f) => [f.filePath, f.startLine, f.checkId.includes('command-injection'), f.metadata.flow]),
        [['lib/shell.js', 3, true, { from: 'routes.js:5 (GET /lookup)', through: 'run' }]],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('records loaded by a key the caller chooses (CWE-639)', () => {
    const idor = async (files: Record<string, string>) => (await check(files)).filter((f) => f.startsWith('authz.object-by-id'));

    test('Express routes registered in one module with handlers of another: the handler module is where the lookup is', async () => {
      const routes = lines(
        "const router = require('express').Router();",
        "const notes = require('../controllers/notes');",
        "const { ensureLoggedIn } = require('../auth');",
        "router.get('/notes/:noteId', ensureLoggedIn, notes.show);",
        "router.post('/notes/:noteId', ensureLoggedIn, notes.update);",
        "router.get('/public/notes/:noteId', notes.preview);",
        'module.exports = router;',
      );
      const controller = lines(
        'module.exports = {',
        '  show: async function (req, res) {',
        '    const { noteId } = req.params;',
        '    res.json(await Note.findById(noteId));',
        '  },',
        '  update: async (req, res) => {',
        '    const note = await Note.findOne({ _id: req.params.noteId, owner: req.user._id });',
        '    note.text = req.body.text;',
        '    res.json(await note.save());',
        '  },',
        '  preview: async (req, res) => res.json(await Note.findById(req.params.noteId)),',
        '};',
      );
      // show: found; update: scoped to the caller; preview: no guard (missing authentication is another check's).
      assert.deepEqual(await idor({ 'routes/notes.js': routes, 'controllers/notes.js': controller }), ['authz.object-by-id-without-ownership@controllers/notes.js:4']);
    });

    test('constructor-style handlers, a DAO called with the id, and the guard mounted with the router', async () => {
      const app = lines(
        "const express = require('express');",
        "const accounts = require('./routes/accounts');",
        'const app = express();',
        "app.use('/accounts', isLoggedIn, accounts);",
      );
      const router = lines(
        "const router = require('express').Router();",
        "const AccountHandler = require('./account-handler');",
        'const handler = new AccountHandler(db);',
        "router.get('/:accountId', handler.show);",
        "router.post('/:accountId', handler.update);",
        'module.exports = router;',
      );
      const handler = lines(
        'function AccountHandler(db) {',
        '  const dao = new AccountDAO(db);',
        '  this.show = (req, res, next) => {',
        '    const { accountId } = req.params;',
        '    dao.getAccount(accountId, (err, account) => res.render("account", { account }));',
        '  };',
        '  this.update = (req, res, next) => {',
        '    if (req.params.accountId !== req.session.userId) return res.status(403).end();',
        '    dao.updateAccount(req.params.accountId, req.body, () => res.redirect("/"));',
        '  };',
        '}',
        'module.exports = AccountHandler;',
      );
      assert.deepEqual(await idor({ 'app.js': app, 'routes/accounts.js': router, 'routes/account-handler.js': handler }), [
        'authz.object-by-id-without-ownership@routes/account-handler.js:5',
      ]);
    });

    test('Sequelize, TypeORM, Prisma and raw SQL lookups; Koa and Fastify requests', async () => {
      const app = lines(
        "const app = require('express')();",
        "app.use(passport.authenticate('jwt', { session: false }));",
        "app.get('/orders/:id', async (req, res) => res.json(await Order.findByPk(req.params.id)));",
        "app.get('/invoices/:id', async (req, res) => res.json(await invoices.findOneBy({ id: Number(req.params.id) })));",
        "app.delete('/carts/:cartId', async (req, res) => res.json(await prisma.cart.delete({ where: { id: req.params.cartId } })));",
        "app.get('/files', async (req, res) => res.json(await pool.query('SELECT * FROM files WHERE id = $1', [req.query.fileId])));",
        "app.get('/mine/:id', async (req, res) => res.json(await Order.findOne({ where: { id: req.params.id, userId: req.user.id } })));",
        "app.get('/search', async (req, res) => res.json(await Order.findAll({ where: { status: req.query.status } })));",
      );
      assert.deepEqual(await idor({ 'app.js': app }), [
        'authz.object-by-id-without-ownership@app.js:3',
        'authz.object-by-id-without-ownership@app.js:4',
        'authz.object-by-id-without-ownership@app.js:5',
        'authz.object-by-id-without-ownership@app.js:6',
      ]);
      const koa = lines(
        "const router = new Router();",
        "router.get('/profiles/:userId', requireAuth, async (ctx) => {",
        '  ctx.body = await Profile.findOne({ user: ctx.params.userId });',
        '});',
      );
      assert.deepEqual(await idor({ 'koa.js': koa }), ['authz.object-by-id-without-ownership@koa.js:3']);
      const fastify = lines(
        "fastify.get('/tickets/:ticketId', { preHandler: fastify.authenticate }, async (request, reply) => {",
        '  const ticket = await Ticket.findById(request.params.ticketId);',
        '  if (!ticket.ownerId.equals(request.user.id)) return reply.code(404).send();',
        '  return ticket;',
        '});',
      );
      assert.deepEqual(await idor({ 'fastify.js': fastify }), [], 'the owner compared after the lookup');
    });

    test('Next.js route handlers: params of the route, a session read at the top', async () => {
      const route = lines(
        "import { getServerSession } from 'next-auth';",
        'export async function GET(req, { params }) {',
        '  const session = await getServerSession(authOptions);',
        "  if (!session) return new Response('', { status: 401 });",
        '  const order = await prisma.order.findUnique({ where: { id: params.id } });',
        '  return Response.json(order);',
        '}',
      );
      assert.deepEqual(await idor({ 'app/api/orders/[id]/route.ts': route }), ['authz.object-by-id-without-ownership@app/api/orders/[id]/route.ts:5']);
      const scoped = route.replace('where: { id: params.id }', 'where: { id: params.id, userId: session.user.id }');
      assert.deepEqual(await idor({ 'app/api/orders/[id]/route.ts': scoped }), []);
    });

    test('sign-in and password recovery find accounts by what is typed; administrators reach every record', async () => {
      const app = lines(
        "const app = require('express')();",
        "app.post('/reset-password', requireLogin, async (req, res) => res.json(await User.findOne({ username: req.body.username })));",
        "app.get('/admin/users/:id', requireLogin, async (req, res) => res.json(await User.findById(req.params.id)));",
        "app.get('/users/:id', requireLogin, accessCheck, async (req, res) => {",
        '  if (!authorize(req.user, "read", req.params.id)) return res.sendStatus(403);',
        '  res.json(await User.findById(req.params.id));',
        '});',
      );
      assert.deepEqual(await idor({ 'app.js': app }), []);
    });
  });

  test('what guards a route: a check at the top of the handler that turns anonymous callers away, middleware that is not set-up', async () => {
    const app = lines(
      "const app = require('express')();",
      'app.use(passport.initialize());',
      'app.use(passport.session());',
      "app.use('/', require('./routes/main')(passport));",
      "app.use('/api', requireLogin);",
      "app.get('/api/items', (req, res) => res.json([]));",
      "app.get('/top', (req, res) => {",
      "  if (!req.session.user) return res.status(401).end();",
      '  res.json([]);',
      '});',
      "app.get('/love', (req, res) => {",
      '  let id = 1;',
      '  if (!req.query.id) { id = req.session.user.id; }',
      '  res.json(id);',
      '});',
      "app.get('/token', (req, res) => {",
      '  const claims = jwt.verify(req.headers.authorization, KEY);',
      '  res.json(claims);',
      '});',
    );
    const { handlers } = await buildJsProgram([{ path: 'app.js', text: app }]);
    assert.deepEqual(
      handlers.map((h) => `${h.paths[0]} ${h.guarded ? 'guarded' : 'open'}`),
      ['/api/items guarded', '/top guarded', '/love open', '/token guarded'],
    );
  });
});
