import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { DeepEngine } from '../../src/scanning/deep/deep-engine.ts';
import { backtracksCatastrophically } from '../../src/scanning/deep/checks/regex-dos.ts';
import { checkPythonSources } from '../../src/scanning/deep/application-checks.ts';
import { SastEngine } from '../../src/scanning/sast/sast-engine.ts';
import { declaredOperations } from '../../src/scanning/deep/openapi-operations.ts';
import { buildPythonProgram } from '../../src/scanning/deep/python-program.ts';

/** The whole-application findings of a project given as files, as `check@path:line`. */
async function check(files: Record<string, string>, hotspots: Record<string, number[]> = {}, only?: string): Promise<string[]> {
  return (await checkPythonSources(Object.entries(files).map(([p, text]) => ({ path: p, text })), hotspots)).findings
    .map((f) => `${f.checkId.replace('python.deep.', '')}@${f.path}:${f.startLine}`)
    .filter((f) => !only || f.startsWith(only));
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const flaskLogin = (extra: string[] = [], body: string[] = []) =>
  lines(
    'from flask import Flask, request, session',
    ...extra,
    'app = Flask(__name__)',
    '',
    '@app.route("/login", methods=["POST"])',
    'def login():',
    ...body,
    '    user = User.query.filter_by(name=request.form["name"]).first()',
    '    if user and check_password_hash(user.pw_hash, request.form["password"]):',
    '        session["user_id"] = user.id',
    '    return redirect("/")',
  );

describe('whole-application checks (Python)', () => {
  test('a sign-in with no attempt limit anywhere is reported where the password is checked; a limiter or a counter silences it', async () => {
    const limits = 'auth.login-without-attempt-limit';
    assert.deepEqual(await check({ 'app.py': flaskLogin() }, {}, limits), ['auth.login-without-attempt-limit@app.py:7']);
    assert.deepEqual(await check({ 'app.py': flaskLogin(['from flask_limiter import Limiter']) }, {}, limits), [], 'an application-wide limiter');
    assert.deepEqual(await check({ 'app.py': flaskLogin([], ['    if failed_attempts(request.form["name"]) > 5:', '        abort(429)']) }, {}, limits), [], 'a counter in the handler');
    // A handler is a sign-in by what it does, whatever its name: it reads a password and starts a session.
    const aiohttp = lines(
      'from aiohttp import web',
      'async def index(request):',
      '    if request.method == "POST":',
      '        data = await request.post()',
      '        user = await User.get_by_username(data["username"])',
      '        if user and user.check_password(data["password"]):',
      '            await remember(request, web.HTTPFound("/"), str(user.id))',
      '    return {}',
    );
    assert.deepEqual(await check({ 'views.py': aiohttp }, {}, limits), ['auth.login-without-attempt-limit@views.py:6']);
    // A sign-up that signs the new account in takes a password its owner chose: there is nothing to guess.
    const signup = lines(
      'from django.views.decorators.http import require_http_methods',
      '@require_http_methods(["GET", "POST"])',
      'def index(request):',
      '    if request.method == "POST":',
      '        user = User.objects.create(email=request.POST["email"],',
      '                                   password=request.POST["password"], created_at=timezone.now())',
      '        response = redirect("/home")',
      '        response.set_cookie("auth_token", user.auth_token)',
      '        return response',
      '    return render(request, "signup.html")',
    );
    assert.deepEqual(await check({ 'views.py': signup }, {}, limits), []);
  });

  test('exception text sent in a response is reported; logged, or answered with a generic message, it is not', async () => {
    const route = (handler: string[]) =>
      lines('from flask import Flask, jsonify', 'app = Flask(__name__)', '@app.route("/q")', 'def q():', '    try:', '        run()', ...handler);
    assert.deepEqual(await check({ 'app.py': route(['    except Exception as e:', '        return jsonify(error=str(e)), 500']) }), ['errors.error-details-to-client@app.py:8']);
    assert.deepEqual(await check({ 'app.py': route(['    except Exception as e:', '        error = f"Database error: {e}"', '    return render_template("q.html", error=error)']) }), [
      'errors.error-details-to-client@app.py:8',
    ]);
    assert.deepEqual(await check({ 'app.py': route(['    except Exception as e:', '        app.logger.error("query failed: %s", e)', '        return jsonify(error="internal error"), 500']) }), []);
    const server = lines(
      'import traceback',
      'from http.server import BaseHTTPRequestHandler',
      'class Handler(BaseHTTPRequestHandler):',
      '    def do_GET(self):',
      '        try:',
      '            content = handle(self.path)',
      '        except Exception:',
      '            content = traceback.format_exc()',
      '        finally:',
      '            self.wfile.write(content.encode())',
    );
    assert.deepEqual(await check({ 'server.py': server }), ['errors.error-details-to-client@server.py:8']);
  });

  test('form routes of a session-using Flask app without CSRF protection give one finding at the app; CSRFProtect silences it', async () => {
    const app = (extra: string[]) =>
      lines(
        'from flask import Flask, request, session',
        ...extra,
        'app = Flask(__name__)',
        '@app.route("/transfer", methods=["POST"])',
        'def transfer():',
        '    if "user" not in session:',
        '        abort(401)',
        '    move(session["user"], request.form["to"], request.form["amount"])',
        '    return "done"',
      );
    assert.deepEqual(await check({ 'app.py': app([]) }), ['csrf.missing-csrf-protection@app.py:2']);
    assert.deepEqual(await check({ 'app.py': app(['from flask_wtf.csrf import CSRFProtect', 'csrf = CSRFProtect()']) }), []);
    assert.deepEqual(await check({ 'app.py': app(['# from flask_wtf.csrf import CSRFProtect']) }), ['csrf.missing-csrf-protection@app.py:3'], 'a commented-out import protects nothing');
  });

  test('aiohttp: session middleware and form posts with no CSRF middleware in the list is reported where the app is made', async () => {
    const app = (middlewares: string) =>
      lines(
        'from aiohttp import web',
        'from aiohttp_session import session_middleware, get_session',
        'async def transfer(request):',
        '    session = await get_session(request)',
        '    data = await request.post()',
        '    await move(session["user"], data["to"], data["amount"])',
        '    return web.Response(text="done")',
        'def make_app():',
        `    app = web.Application(middlewares=[${middlewares}])`,
        '    app.router.add_post("/transfer", transfer)',
        '    return app',
      );
    assert.deepEqual(await check({ 'app.py': app('session_middleware(storage)') }, {}, 'csrf'), ['csrf.missing-csrf-protection@app.py:9']);
    assert.deepEqual(await check({ 'app.py': app('session_middleware(storage), csrf_middleware') }, {}, 'csrf'), []);
    const commentedOut = app('\n        session_middleware(storage),\n        # csrf_middleware,\n    ');
    assert.deepEqual(await check({ 'app.py': commentedOut }, {}, 'csrf'), ['csrf.missing-csrf-protection@app.py:9'], 'a middleware commented out protects nothing');
  });

  test('CSRF is judged per application: an aiohttp app that keeps no session is not reported because a Flask app beside it does', async () => {
    const aiohttpApp = lines(
      'from aiohttp import web',
      'routes = web.RouteTableDef()',
      '@routes.post("/files/upload")',
      'async def upload(request):',
      '    data = await request.post()',
      '    save(data["file"])',
      '    return web.Response(text="ok")',
      'app = web.Application()',
    );
    const flaskApp = (route: string[]) =>
      lines('from flask import Flask, request, session', 'app = Flask(__name__)', '@app.route("/me")', 'def me():', '    return session.get("name", "")', ...route);
    const csrf = 'csrf.missing';
    assert.deepEqual(await check({ 'apps/aiohttp_app.py': aiohttpApp, 'apps/flask_app.py': flaskApp([]) }, {}, csrf), []);
    const form = ['@app.route("/name", methods=["POST"])', 'def name():', '    session["name"] = request.form["name"]', '    return "ok"'];
    assert.deepEqual(await check({ 'apps/aiohttp_app.py': aiohttpApp, 'apps/flask_app.py': flaskApp(form) }, {}, csrf), ['csrf.missing-csrf-protection@apps/flask_app.py:2']);
  });

  test('a GET route that writes what the query string says, in an app with sessions, is cross-site request forgery', async () => {
    const app = (methods: string) =>
      lines(
        'from flask import Flask, request, session',
        'app = Flask(__name__)',
        `@app.route("/transfer"${methods})`,
        'def transfer():',
        '    db.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (request.args["amount"], session["user"]))',
        '    db.commit()',
        '    return "done"',
      );
    assert.deepEqual(await check({ 'app.py': app('') }, {}, 'csrf.state'), ['csrf.state-change-on-get@app.py:3']);
    assert.deepEqual(await check({ 'app.py': app(', methods=["POST"]') }, {}, 'csrf.state'), []);
  });

  test('in an app that signs users in, an unguarded entry point with effects is reported; guarded or harmless ones are not', async () => {
    const app = lines(
      'from flask import Flask, request, session',
      'from flask_login import login_required',
      'app = Flask(__name__)',
      '@app.route("/")',
      'def index():',
      '    return render_template("index.html")',
      '@app.route("/admin/users", methods=["POST"])',
      '@login_required',
      'def add_user():',
      '    db.session.add(User(name=request.form["name"]))',
      '    db.session.commit()',
      '    return "ok"',
      '@app.route("/lookup")',
      'def lookup():',
      '    return rp("nslookup " + request.args["host"]).read()',
      '@app.route("/notes/<int:id>", methods=["DELETE"])',
      'def delete_note(id):',
      '    Note.query.filter_by(id=id).delete()',
      '    db.session.commit()',
      '    return ""',
      '@app.route("/about")',
      'def about():',
      '    return "about"',
    );
    assert.deepEqual(await check({ 'app.py': app.replace('from flask_login', 'from os import popen as rp\nfrom flask_login') }, { 'app.py': [16] }, 'auth.'), ['auth.missing-authentication@app.py:14', 'auth.missing-authentication@app.py:17']);
    assert.deepEqual(await check({ 'app.py': app.replace('rp("nslookup " + request.args["host"]).read()', '"<p>" + request.args["host"]') }, { 'app.py': [15] }, 'auth.'), ['auth.missing-authentication@app.py:16'], 'a page that echoes the request (cross-site scripting) needs no sign-in to be fixed');
    assert.deepEqual(await check({ 'app.py': app.replace('@login_required\n', '') }, {}, 'auth.'), [], 'no route is guarded and none signs in: nothing to compare against');
    const hook = app.replace('app = Flask(__name__)\n', 'app = Flask(__name__)\n@app.before_request\ndef require_login():\n    if "user_id" not in session:\n        return redirect("/login")\n');
    assert.deepEqual(await check({ 'app.py': hook }, { 'app.py': [19] }, 'auth.'), [], 'a before_request hook guards every route');
  });

  test('what an entry point does decides, not the methods it answers; a token checked in the body guards it; a password compared and forgotten signs nobody in', async () => {
    const app = (login: string[], handler: string[]) =>
      lines(
        'from flask import Flask, request, session, render_template',
        'app = Flask(__name__)',
        '@app.route("/login", methods=["POST"])',
        'def login():',
        '    if request.form["password"] == PASSWORD:',
        ...login,
        '    return "ok"',
        ...handler,
      );
    const signsIn = ['        session["user"] = request.form["name"]'];
    const page = ['@app.route("/glossary", methods=["GET", "POST"])', 'def glossary():', '    return render_template("glossary.html")'];
    const writes = (guard: string[]) => ['@app.route("/notes", methods=["POST"])', 'def add_note():', ...guard, '    db.session.add(Note(text=request.form["text"]))', '    db.session.commit()', '    return "ok"'];
    assert.deepEqual(await check({ 'app.py': app(signsIn, page) }, {}, 'auth.missing'), [], 'renders a page for any method');
    assert.deepEqual(await check({ 'app.py': app(signsIn, writes([])) }, {}, 'auth.missing'), ['auth.missing-authentication@app.py:8']);
    assert.deepEqual(await check({ 'app.py': app(signsIn, writes(['    if not is_valid_token(request.headers.get("Authorization")):', '        return "no", 401'])) }, {}, 'auth.missing'), [], 'token checked in the body');
    assert.deepEqual(await check({ 'app.py': app([], writes([])) }, {}, 'auth.missing'), [], 'the sign-in starts no session and hands out no token');
  });

  test("the project's own decorator guards what it wraps when its wrapper turns anonymous callers away, whatever its name", async () => {
    const app = (check: string) =>
      lines(
        'from functools import wraps',
        'from flask import Flask, request, session, redirect',
        'app = Flask(__name__)',
        'def must_be_in(view):',
        '    @wraps(view)',
        '    def wrapper(*args, **kwargs):',
        `        ${check}`,
        '            return redirect("/login")',
        '        return view(*args, **kwargs)',
        '    return wrapper',
        '@app.route("/notes", methods=["POST"])',
        '@must_be_in',
        'def add_note():',
        '    db.session.add(Note(text=request.form["text"]))',
        '    db.session.commit()',
        '    return "ok"',
        '@app.route("/old", methods=["DELETE"])',
        '@login_required',
        'def old():',
        '    return ""',
      );
    assert.deepEqual(await check({ 'app.py': app('if "username" not in session:') }, {}, 'auth.missing'), []);
    assert.deepEqual(await check({ 'app.py': app('if request.args.get("debug"):') }, {}, 'auth.missing'), ['auth.missing-authentication@app.py:11'], 'a wrapper that checks no caller');
  });

  test('Django: a function that takes the request first but no URLconf routes is a helper of a view, not an entry point', async () => {
    const views = lines(
      'from app.decorators import user_is_authenticated',
      '@user_is_authenticated',
      'def notes(request):',
      '    if request.method == "POST":',
      '        return notes_post(request)',
      '    return render(request, "notes.html")',
      'def notes_post(request):',
      '    Note.objects.create(text=request.POST["text"])',
      '    return redirect("/notes")',
    );
    const urls = (...routes: string[]) => lines('from django.urls import path', 'from app import views', 'urlpatterns = [', ...routes, ']');
    assert.deepEqual(await check({ 'app/views.py': views, 'app/urls.py': urls('    path("notes", views.notes),') }, {}, 'auth.missing'), []);
    assert.deepEqual(await check({ 'app/views.py': views, 'app/urls.py': urls('    path("notes", views.notes),', '    path("notes/new", views.notes_post),') }, {}, 'auth.missing'), [
      'auth.missing-authentication@app/views.py:7',
    ]);
  });

  test('an administrative view that only asks for a signed-in user is reported; one that checks a role is not', async () => {
    const views = (guard: string, body: string[]) =>
      lines(
        'from django.views.decorators.http import require_http_methods',
        'from app.decorators import user_is_authenticated',
        '@require_http_methods(["POST"])',
        guard,
        'def admin_delete_user(request, selected_id):',
        ...body,
        '    User.objects.get(user_id=int(selected_id)).delete()',
        '    return JsonResponse({"ok": True})',
      );
    assert.deepEqual(await check({ 'app/views/admin/views.py': views('@user_is_authenticated', []) }, {}, 'authz.admin'), ['authz.admin-without-role-check@app/views/admin/views.py:3']);
    assert.deepEqual(await check({ 'app/views/admin/views.py': views('@user_is_authenticated', ['    if not request.user.is_staff:', '        raise PermissionDenied']) }, {}, 'authz.admin'), []);
    assert.deepEqual(await check({ 'app/views/admin/views.py': views('@staff_member_required', []) }, {}, 'authz.admin'), []);
  });

  test('Django URLconfs give views their paths and the guards wrapped around them', async () => {
    const views = lines(
      'from django.shortcuts import render',
      'from app.decorators import user_is_authenticated',
      '@user_is_authenticated',
      'def profile(request):',
      '    return render(request, "profile.html")',
      'def delete_note(request, note_id):',
      '    Note.objects.get(pk=note_id).delete()',
      '    return redirect("/")',
    );
    const urls = (view: string) =>
      lines(
        'from django.urls import path',
        'from django.contrib.auth.decorators import login_required',
        'from notes import views',
        'urlpatterns = [',
        '    path("profile", views.profile),',
        `    path("notes/<int:note_id>/delete", ${view}),`,
        ']',
      );
    assert.deepEqual(await check({ 'notes/views.py': views, 'notes/urls.py': urls('views.delete_note') }), ['auth.missing-authentication@notes/views.py:6']);
    assert.deepEqual(await check({ 'notes/views.py': views, 'notes/urls.py': urls('login_required(views.delete_note)') }), [
      'authz.object-by-id-without-ownership@notes/views.py:7',
    ]);
  });

  test('class-based views take their guard from the class', async () => {
    const views = (decorators: string) =>
      lines(
        'from flask.views import MethodView',
        'from flask_login import login_required',
        'class Session(MethodView):',
        '    decorators = [login_required]',
        '    def get(self):',
        '        return "me"',
        'class Messages(MethodView):',
        `    decorators = [${decorators}]`,
        '    def post(self):',
        '        db.session.add(Message(text=request.json["text"]))',
        '        db.session.commit()',
        '        return "", 201',
      );
    assert.deepEqual(await check({ 'views.py': views('') }), ['auth.missing-authentication@views.py:9']);
    assert.deepEqual(await check({ 'views.py': views('login_required') }), []);
  });

  test('DRF: DEFAULT_PERMISSION_CLASSES guard every API view that sets none of its own; AllowAny opens one', async () => {
    const views = lines(
      'from rest_framework.views import APIView',
      'from rest_framework.decorators import api_view, permission_classes',
      'from rest_framework.permissions import AllowAny',
      'class NoteList(APIView):',
      '    def post(self, request):',
      '        Note.objects.create(text=request.data["text"])',
      '        return Response(status=201)',
      'class PublicNotes(APIView):',
      '    permission_classes = [AllowAny]',
      '    def delete(self, request):',
      '        Note.objects.all().delete()',
      '        return Response(status=204)',
      '@api_view(["POST"])',
      'def purge(request):',
      '    Note.objects.all().delete()',
      '    return Response(status=204)',
      '@api_view(["POST"])',
      '@permission_classes([AllowAny])',
      'def wipe(request):',
      '    Note.objects.all().delete()',
      '    return Response(status=204)',
    );
    const settings = (classes: string) => lines('REST_FRAMEWORK = {', `    "DEFAULT_PERMISSION_CLASSES": [${classes}],`, '}');
    const urls = lines('from django.urls import path', 'from notes import views', 'urlpatterns = [', '    path("purge", views.purge),', '    path("wipe", views.wipe),', ']');
    const run = (classes: string) => check({ 'notes/views.py': views, 'notes/urls.py': urls, 'project/settings.py': settings(classes) }, {}, 'auth.missing');
    assert.deepEqual(await run('"rest_framework.permissions.IsAuthenticated"'), ['auth.missing-authentication@notes/views.py:10', 'auth.missing-authentication@notes/views.py:17']);
  });

  test('Tornado handlers take their paths from the route table; http.server handlers answer the verb of their do_ methods', async () => {
    const tornado = lines(
      'import tornado.web',
      'class Profile(tornado.web.RequestHandler):',
      '    @tornado.web.authenticated',
      '    def get(self):',
      '        self.write(self.current_user)',
      'class Note(tornado.web.RequestHandler):',
      '    @tornado.web.authenticated',
      '    def get(self, note_id):',
      '        note = db.query(Note).get(note_id)',
      '        self.write(note.text)',
      '    def delete(self, note_id):',
      '        db.query(Note).filter_by(id=note_id).delete()',
      '        db.commit()',
      'app = tornado.web.Application([(r"/me", Profile), url(r"/notes/(\\d+)", Note)])',
    );
    assert.deepEqual(await check({ 'app.py': tornado }), ['authz.object-by-id-without-ownership@app.py:9', 'auth.missing-authentication@app.py:11']);
    const program = await buildPythonProgram([{ path: 'app.py', text: tornado }]);
    assert.deepEqual(
      program.handlers.map((h) => `${h.methods.join()} ${h.paths.join()} ${h.className}.${h.name} ${h.guarded}`),
      ['GET /me Profile.get true', 'GET /notes/(\\d+) Note.get true', 'DELETE /notes/(\\d+) Note.delete false'],
    );
    const server = lines(
      'from http.server import BaseHTTPRequestHandler',
      'class Handler(BaseHTTPRequestHandler):',
      '    def do_POST(self):',
      '        body = self.rfile.read(int(self.headers["Content-Length"]))',
      '        os.system(body.decode())',
      '    def log_message(self, format, *args):',
      '        pass',
    );
    const stdlib = await buildPythonProgram([{ path: 'server.py', text: server }]);
    assert.deepEqual(stdlib.handlers.map((h) => `${h.methods.join()} ${h.name} ${h.requestCalls.map((c) => c.callee).join()}`), ['POST do_POST self.rfile.read,int,os.system']);
  });

  test('a password taken from the request and stored as it came is reported; a hashed one is not', async () => {
    const register = (value: string) =>
      lines(
        'from flask import Flask, request',
        'app = Flask(__name__)',
        '@app.route("/register", methods=["POST"])',
        'def register():',
        `    user = User(name=request.form["name"], password=${value})`,
        '    db.session.add(user)',
        '    db.session.commit()',
        '    return "ok"',
      );
    assert.deepEqual(await check({ 'app.py': register('request.form["password"]') }), ['crypto.plaintext-password-storage@app.py:5']);
    assert.deepEqual(await check({ 'app.py': register('generate_password_hash(request.form["password"])') }), []);
  });

  test('a password column in an app that hashes no password, and a password in serialized output, are reported', async () => {
    const model = (extra: string[]) =>
      lines(
        'from flask_sqlalchemy import SQLAlchemy',
        ...extra,
        'db = SQLAlchemy()',
        'class User(db.Model):',
        '    id = db.Column(db.Integer, primary_key=True)',
        '    password = db.Column(db.String(80))',
        '    def serialize(self):',
        '        return {"id": self.id, "password": self.password}',
      );
    assert.deepEqual(await check({ 'models.py': model([]) }), ['crypto.plaintext-password-column@models.py:5', 'data.password-in-serialized-output@models.py:7']);
    assert.deepEqual(await check({ 'models.py': model(['from werkzeug.security import generate_password_hash']) }), ['data.password-in-serialized-output@models.py:8']);
  });
});

describe('whole-application checks: records by id, and regular expressions', () => {
  test('a signed-in handler fetching a record by a URL id with no owner scope or check is reported; scoped or checked it is not', async () => {
    const view = (lookup: string, after: string[] = []) =>
      lines(
        'from django.shortcuts import render',
        'from app.decorators import user_is_authenticated',
        '@user_is_authenticated',
        'def show_message(request, message_id):',
        `    message = ${lookup}`,
        ...after,
        '    return render(request, "message.html", {"message": message})',
      );
    assert.deepEqual(await check({ 'views.py': view('Message.objects.get(pk=message_id)') }), ['authz.object-by-id-without-ownership@views.py:5']);
    assert.deepEqual(await check({ 'views.py': view('Message.objects.get(pk=message_id, owner=request.user)') }), [], 'scoped to the caller');
    assert.deepEqual(await check({ 'views.py': view('Message.objects.get(pk=message_id)', ['    if message.recipient != request.user:', '        raise PermissionDenied']) }), [], 'checked after the lookup');
    assert.deepEqual(await check({ 'views.py': view('Message.objects.get(pk=message_id)').replace('@user_is_authenticated', '@admin_required') }), [], 'an administrators’ view');
    assert.deepEqual(await check({ 'views.py': view('Message.objects.get(message_id=caller_id(request))') }), [], 'the keyword is not the value: looked up by the caller');
    assert.deepEqual(await check({ 'views.py': view('Message.objects.get(pk=message_id)').replace('    message =', '    if request.user.is_staff:\n        message =') }), [], 'a branch for administrators');
  });

  test('the id may come from the query string, a form or JSON field, or any parameter the route path names; a sign-in finding the account by name is not one', async () => {
    const flask = (route: string, signature: string, body: string[]) =>
      lines(
        'from flask import Flask, request, session',
        'from flask_login import login_required',
        'app = Flask(__name__)',
        `@app.route("${route}")`,
        '@login_required',
        `def ${signature}:`,
        ...body,
        '    return jsonify(doc.serialize)',
      );
    const only = 'authz.object';
    assert.deepEqual(await check({ 'app.py': flask('/docs', 'doc()', ['    doc_id = int(request.args.get("doc_id"))', '    doc = Doc.query.get(doc_id)']) }, {}, only), ['authz.object-by-id-without-ownership@app.py:8']);
    assert.deepEqual(await check({ 'app.py': flask('/docs', 'doc()', ['    doc = Doc.query.get(request.args.get("doc_id"))']) }, {}, only), ['authz.object-by-id-without-ownership@app.py:7']);
    assert.deepEqual(await check({ 'app.py': flask('/docs/<title>', 'doc(title)', ['    doc = Doc.query.filter_by(title=title).first()']) }, {}, only), ['authz.object-by-id-without-ownership@app.py:7']);
    assert.deepEqual(await check({ 'app.py': flask('/docs/<title>', 'doc(title)', ['    doc = Doc.query.filter_by(title=title, owner_id=current_user.id).first()']) }, {}, only), [], 'scoped to the caller');
    const signIn = lines(
      'from flask import Flask, request, session',
      'app = Flask(__name__)',
      '@app.route("/login", methods=["POST"])',
      'def login():',
      '    if session.get("user_id"):',
      '        return redirect("/")',
      '    username = request.form["username"]',
      '    user = User.query.filter_by(username=username, password=request.form["password"]).first()',
      '    session["user_id"] = user.id',
      '    return redirect("/")',
    );
    assert.deepEqual(await check({ 'app.py': signIn }, {}, only), []);
  });

  test('nested repetition is catastrophic backtracking, unless a character the inner part cannot take separates the rounds, or the outer repetition is bounded', async () => {
    for (const evil of ['((a)+)+', '(\\w+\\s?)*$', '^([0-9a-z]([-.\\w]*[0-9a-z])*@example\\.com)$', '(a{1,5})+', '(?:x+y?)*z']) {
      assert.equal(backtracksCatastrophically(evil), true, evil);
    }
    const separated = ['^[A-Za-z_]\\w*(\\.[A-Za-z_]\\w*)+$', '^(from|import(\\s+[\\w.]+\\s*,)*)\\s+sqlite3', '((?:[A-Za-z_$][\\w$]*\\s*(?:\\.|::|->)\\s*)*[A-Za-z_$][\\w$]*)\\s*\\(', '^(\\d+)(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?$'];
    const bounded = ['^v?(\\d{4}(?:[.:-]?\\d{2}){1,6})$'];
    for (const safe of ['^\\d+(\\.\\d+)?$', '(ab)+', '(a|b)*c', '[(a+)]+', '\\(a+\\)+', '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$', ...separated, ...bounded]) {
      assert.equal(backtracksCatastrophically(safe), false, safe);
    }
  });

  test('a catastrophic pattern run on data is reported where it runs, through constants and compiled patterns; on a literal it is not', async () => {
    const code = lines(
      'import re',
      'PATTERN = r"((a)+)+"',
      'def check(text):',
      '    return re.match(PATTERN, text)',
      'def check_compiled(text):',
      '    pattern = re.compile(PATTERN)',
      '    return pattern.search(text)',
      'def replace(text):',
      '    return re.sub(PATTERN, "", text)',
      'def fixed():',
      '    return re.match(PATTERN, "aaaa")',
      'def safe(text):',
      '    return re.match(r"^a+$", text)',
    );
    assert.deepEqual(await check({ 'util.py': code }), ['dos.catastrophic-regex@util.py:4', 'dos.catastrophic-regex@util.py:7', 'dos.catastrophic-regex@util.py:9']);
  });
});

describe('routes declared in an API description', () => {
  test('operations name their functions, with the credentials the description demands of each', () => {
    const spec = lines(
      'openapi: 3.0.0',
      'security:',
      '  - bearerAuth: []',
      'paths:',
      '  /users:',
      '    get:',
      '      operationId: api_views.users.get_all_users',
      '      security: []',
      '    post:',
      '      operationId: api_views.users.register_user',
      '  /books:',
      '    x-openapi-router-controller: api_views.books',
      '    get:',
      '      operationId: get_all_books',
    );
    assert.deepEqual(declaredOperations(spec), [
      { module: 'api_views.users', function: 'get_all_users', method: 'GET', path: '/users', guarded: false },
      { module: 'api_views.users', function: 'register_user', method: 'POST', path: '/users', guarded: true },
      { module: 'api_views.books', function: 'get_all_books', method: 'GET', path: '/books', guarded: true },
    ]);
    assert.deepEqual(declaredOperations('{"name": "app", "operationId": "x"}'), [], 'not an API description');
  });

  test('their functions are entry points of the model: an unguarded one with effects is reported', async () => {
    const views = lines(
      'from models import db, User',
      'def populate_db():',
      '    db.drop_all()',
      '    db.create_all()',
      'def delete_user(username):',
      '    User.query.filter_by(username=username).delete()',
      '    db.session.commit()',
    );
    const operations = [
      { module: 'api_views.main', function: 'populate_db', method: 'GET', path: '/createdb', guarded: false },
      { module: 'api_views.main', function: 'delete_user', method: 'DELETE', path: '/users/{username}', guarded: true },
    ];
    const { findings } = await checkPythonSources([{ path: 'api_views/main.py', text: views }], {}, operations);
    assert.deepEqual(findings.map((f) => `${f.checkId}@${f.startLine}`), ['python.deep.auth.missing-authentication@2', 'python.deep.authz.object-by-id-without-ownership@6']);
  });
});

describe('the deep engine', () => {
  test('reports everything the static engine reports, plus the application findings, once each', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-deep-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'app.py'),
        lines(
          'import os',
          'from flask import Flask, request, session',
          'app = Flask(__name__)',
          '@app.route("/login", methods=["POST"])',
          'def login():',
          '    if request.form["password"] == os.environ["ADMIN_PASSWORD"]:',
          '        session["user"] = "admin"',
          '    return "ok"',
          '@app.route("/lookup")',
          'def lookup():',
          '    return os.popen("ping -c 1 " + request.args["host"]).read()',
        ),
      );
      const input = { dir, fingerprintKey: Buffer.alloc(32, 1) };
      const sast = await new SastEngine({ pool: null }).scan(input);
      const overall: number[] = [];
      const deep = await new DeepEngine(new SastEngine({ pool: null }), { pool: null }).scan({ ...input, onProgress: (p) => p.overall !== undefined && overall.push(p.overall) });
      assert.deepEqual(overall, [...overall].sort((a, b) => a - b), `overall progress went down: ${overall.join(', ')}`);
      assert.ok(overall.length > 2 && overall.at(-1)! >= 0.9 && overall.at(-1)! < 1, overall.join(', '));
      const key = (f: { checkId: string; startLine: number }) => `${f.checkId}:${f.startLine}`;
      assert.ok(sast.length > 0);
      for (const finding of sast) assert.ok(deep.some((d) => key(d) === key(finding)), `the deep scan lacks ${key(finding)}`);
      const extra = deep.filter((d) => !sast.some((s) => key(s) === key(d))).map(key);
      assert.deepEqual(extra, ['python.deep.auth.login-without-attempt-limit:6', 'python.deep.auth.missing-authentication:9']);
      assert.equal(new Set(deep.map(key)).size, deep.length);
      // A check that is off by default runs when the setting names it.
      const enabled = await new DeepEngine(new SastEngine({ pool: null }), { pool: null, enabledChecks: ['python.deep.csrf.missing-csrf-protection'] }).scan(input);
      assert.deepEqual(enabled.filter((d) => !sast.some((s) => key(s) === key(d))).map(key), ['python.deep.csrf.missing-csrf-protection:3', ...extra]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a rule that is off by default is reported only where the setting names it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-deep-'));
    try {
      fs.writeFileSync(path.join(dir, 'app.py'), lines('def signed_in(resp, token):', '    resp.set_cookie("session", token)', '    return resp'));
      const input = { dir, fingerprintKey: Buffer.alloc(32, 1) };
      const rule = 'python.flask.cookie.insecure-cookie';
      const ids = async (enabledRules?: string[]) => (await new SastEngine({ pool: null, enabledRules }).scan(input)).map((f) => f.checkId);
      assert.ok(!(await ids()).includes(rule));
      assert.ok((await ids([rule])).includes(rule));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('request data followed into another module: through an imported function, and into an API description\'s operations', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-deep-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), text);
      };
      write('app.py', lines('from flask import Flask, request', 'from reports.files import read_report', 'app = Flask(__name__)', '@app.route("/report")', 'def report():', '    return read_report(request.args["name"])'));
      write('reports/__init__.py', '');
      write('reports/files.py', lines('import os', 'def read_report(name):', '    with open(os.path.join("reports", name)) as f:', '        return f.read()'));
      write('api/views.py', lines('import subprocess', 'def lookup(host):', '    return subprocess.check_output("nslookup " + host, shell=True)', 'def version():', '    return "1.0"'));
      write(
        'openapi.yaml',
        lines('openapi: 3.0.0', 'paths:', '  /lookup:', '    get:', '      operationId: api.views.lookup', '  /version:', '    get:', '      operationId: api.views.version'),
      );
      const input = { dir, fingerprintKey: Buffer.alloc(32, 1) };
      const sast = await new SastEngine({ pool: null }).scan(input);
      const deep = await new DeepEngine(new SastEngine({ pool: null }), { pool: null }).scan(input);
      const flows = deep.filter((f) => f.metadata.flow);
      assert.deepEqual(
        flows.map((f) => [`${f.filePath}:${f.startLine}:${f.checkId}`, f.metadata.flow]),
        [
          ['api/views.py:3:python.lang.command-injection.shell-command', { from: 'the API operation GET /lookup', through: 'lookup' }],
          ['reports/files.py:3:python.lang.path-traversal.file-access', { from: 'app.py:6 (report)', through: 'read_report' }],
        ],
      );
      assert.match(flows[1].message, /Request data reaches it from app\.py:6 \(report\) through read_report\(\)\.$/);
      // The same findings as the static phase's (their identity unchanged), now with the path, and none twice.
      for (const flow of flows) assert.ok(sast.some((f) => f.fingerprint === flow.fingerprint && !f.metadata.flow));
      assert.equal(deep.length, new Set(deep.map((f) => `${f.checkId}:${f.filePath}:${f.startLine}`)).size);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
