import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkPythonSources } from '../../src/scanning/deep/application-checks.ts';
import { buildPythonProgram } from '../../src/scanning/deep/python-program.ts';

// Authentication and ownership of Python entry points, per framework: what guards a route (decorators,
// hooks, dependencies, middleware, class settings), what makes an open one worth a finding, and what ties
// a record fetched by a caller-chosen id to the caller.

const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** The whole-application findings of a project given as files, as `check@path:line`, of the checks whose id starts with `only`. */
async function check(files: Record<string, string>, only: string, hotspots: Record<string, number[]> = {}): Promise<string[]> {
  return (await checkPythonSources(Object.entries(files).map(([p, text]) => ({ path: p, text })), hotspots)).findings
    .map((f) => `${f.checkId.replace('python.deep.', '')}@${f.path}:${f.startLine}`)
    .filter((f) => f.startsWith(only));
}

/** Each handler of a project as `name guarded`. */
async function guards(files: Record<string, string>): Promise<string[]> {
  const program = await buildPythonProgram(Object.entries(files).map(([p, text]) => ({ path: p, text })));
  return program.handlers.map((h) => `${h.className ? `${h.className}.` : ''}${h.name} ${h.guarded}`);
}

const MISSING = 'auth.missing-authentication';
const IDOR = 'authz.object-by-id-without-ownership';

describe('what guards a Python entry point', () => {
  test('Django: a decorator that restricts methods asks nothing of the caller; login_required does', async () => {
    const views = (decorator: string) =>
      lines(
        'from django.views.decorators.http import require_http_methods, require_POST',
        'from django.contrib.auth.decorators import login_required',
        '@require_POST',
        decorator,
        'def delete_note(request, note_id):',
        '    Note.objects.filter(pk=note_id).delete()',
        '    return redirect("/")',
        '@login_required',
        'def profile(request):',
        '    return render(request, "profile.html")',
      );
    const urls = lines('from django.urls import path', 'from notes import views', 'urlpatterns = [path("n/<int:note_id>", views.delete_note), path("me", views.profile)]');
    assert.deepEqual(await guards({ 'notes/views.py': views('@require_http_methods(["POST"])'), 'notes/urls.py': urls }), ['delete_note false', 'profile true']);
    assert.deepEqual(await check({ 'notes/views.py': views('@require_http_methods(["POST"])'), 'notes/urls.py': urls }, MISSING), [`${MISSING}@notes/views.py:3`]);
    assert.deepEqual(await check({ 'notes/views.py': views('@login_required'), 'notes/urls.py': urls }, MISSING), []);
  });

  test('Flask: a before_request hook guards only when it turns callers away, and only the routes of its blueprint', async () => {
    const init = (hook: string[]) =>
      lines('from flask import Blueprint, session, redirect, g', 'from flask_login import current_user', 'admin = Blueprint("admin", __name__)', '@admin.before_request', 'def check():', ...hook, 'from . import views');
    const views = lines(
      'from . import admin',
      'from shop import shop',
      '@admin.route("/wipe", methods=["POST"])',
      'def wipe():',
      '    Order.query.delete()',
      '    db.session.commit()',
      '    return "ok"',
      '@shop.route("/orders", methods=["POST"])',
      'def order():',
      '    db.session.add(Order(item=request.form["item"]))',
      '    db.session.commit()',
      '    return "ok"',
    );
    const shop = lines('from flask import Blueprint', 'from flask_login import login_required', 'shop = Blueprint("shop", __name__)', '@shop.route("/me")', '@login_required', 'def me():', '    return "me"');
    const rejects = ['    if not current_user.is_authenticated:', '        return redirect("/login")'];
    const copies = ['    g.user = current_user'];
    assert.deepEqual(await guards({ 'admin/__init__.py': init(rejects), 'admin/views.py': views, 'shop.py': shop }), ['wipe true', 'order false', 'me true']);
    assert.deepEqual(await guards({ 'admin/__init__.py': init(copies), 'admin/views.py': views, 'shop.py': shop }), ['wipe false', 'order false', 'me true'], 'a hook that copies the user into g');
    // Registered by a call instead of a decorator, on the application: every route.
    const byCall = lines('from flask import Flask, session, abort', 'app = Flask(__name__)', 'def require_login():', '    if "user_id" not in session:', '        abort(401)', 'app.before_request(require_login)');
    assert.deepEqual(await guards({ 'app.py': byCall, 'admin/views.py': views.replace('from . import admin', 'from app import app as admin') }), ['wipe true', 'order true']);
  });

  test('FastAPI: dependencies of the route, of its router, or given where the router is included', async () => {
    const security = lines(
      'from fastapi import Depends, HTTPException, status',
      'from fastapi.security import OAuth2PasswordBearer',
      'oauth2 = OAuth2PasswordBearer(tokenUrl="token")',
      'def require_member(token: str = Depends(oauth2)):',
      '    user = lookup_token(token)',
      '    if user is None:',
      '        raise HTTPException(status_code=status.HTTP_401_UNAUTHORIZED, detail="bad credentials")',
      '    return user',
      'def get_db():',
      '    yield SessionLocal()',
    );
    const notes = (router: string, dependency: string) =>
      lines(
        'from fastapi import APIRouter, Depends',
        'from app.security import require_member, get_db',
        `router = ${router}`,
        '@router.delete("/notes/{note_id}")',
        `def delete_note(note_id: int, db = Depends(get_db)${dependency}):`,
        '    db.query(Note).filter(Note.id == note_id).delete()',
        '    db.commit()',
      );
    const main = (include: string) => lines('from fastapi import FastAPI, Depends', 'from app import notes', 'from app.security import require_member', 'app = FastAPI()', include);
    const run = (router: string, dependency: string, include = 'app.include_router(notes.router)') =>
      guards({ 'app/security.py': security, 'app/notes.py': notes(router, dependency), 'app/main.py': main(include) });
    assert.deepEqual(await run('APIRouter()', ''), ['delete_note false'], 'a database session is no guard');
    assert.deepEqual(await run('APIRouter()', ', member = Depends(require_member)'), ['delete_note true'], "the project's dependency raises 401");
    assert.deepEqual(await run('APIRouter(prefix="/n", dependencies=[Depends(require_member)])', ''), ['delete_note true']);
    assert.deepEqual(await run('APIRouter()', '', 'app.include_router(notes.router, dependencies=[Depends(require_member)])'), ['delete_note true']);
  });

  test('aiohttp and Django middleware that turn anonymous callers away guard every route once installed', async () => {
    const middleware = lines(
      'from aiohttp import web',
      'from aiohttp_session import get_session',
      '@web.middleware',
      'async def members_only(request, handler):',
      '    session = await get_session(request)',
      '    if "user_id" not in session and request.path != "/login":',
      '        raise web.HTTPUnauthorized()',
      '    return await handler(request)',
    );
    const views = lines('from aiohttp import web', 'async def wipe(request):', '    await Course.delete_all(request.app["db"])', '    return web.Response()');
    const app = (list: string) => lines('from aiohttp import web', 'from .middlewares import members_only', `app = web.Application(middlewares=[${list}])`);
    assert.deepEqual(await guards({ 'sqli/middlewares.py': middleware, 'sqli/views.py': views, 'sqli/app.py': app('members_only') }), ['wipe true']);
    assert.deepEqual(await guards({ 'sqli/middlewares.py': middleware, 'sqli/views.py': views, 'sqli/app.py': app('') }), ['wipe false'], 'defined, never installed');
    const django = lines(
      'from django.shortcuts import redirect',
      'class MembersOnly:',
      '    def __init__(self, get_response):',
      '        self.get_response = get_response',
      '    def __call__(self, request):',
      '        if not request.user.is_authenticated and request.path != "/login/":',
      '            return redirect("/login/")',
      '        return self.get_response(request)',
    );
    const settings = (extra: string) => lines('MIDDLEWARE = [', '    "django.contrib.auth.middleware.AuthenticationMiddleware",', extra, ']');
    const djangoViews = lines('def purge(request):', '    Note.objects.all().delete()', '    return redirect("/")');
    const urls = lines('from django.urls import path', 'from notes import views', 'urlpatterns = [path("purge", views.purge)]');
    const project = (extra: string) => ({ 'notes/middleware.py': django, 'notes/views.py': djangoViews, 'notes/urls.py': urls, 'site/settings.py': settings(extra) });
    assert.deepEqual(await guards(project('    "notes.middleware.MembersOnly",')), ['purge true']);
    assert.deepEqual(await guards(project('')), ['purge false']);
  });

  test('class-based views: method_decorator on dispatch, DRF ViewSet actions, Flask-Classful views', async () => {
    const django = (decorator: string) =>
      lines(
        'from django.views import View',
        'from django.utils.decorators import method_decorator',
        'from django.contrib.auth.decorators import login_required',
        'class NoteView(View):',
        decorator,
        '    def dispatch(self, *args, **kwargs):',
        '        return super().dispatch(*args, **kwargs)',
        '    def post(self, request):',
        '        Note.objects.create(text=request.POST["text"])',
        '        return redirect("/")',
      );
    assert.deepEqual(await guards({ 'views.py': django('    @method_decorator(login_required)') }), ['NoteView.post true']);
    assert.deepEqual(await guards({ 'views.py': django('    @method_decorator(require_POST)') }), ['NoteView.post false']);
    const viewset = (permissions: string) =>
      lines(
        'from rest_framework import viewsets',
        'class NoteViewSet(viewsets.ModelViewSet):',
        permissions,
        '    def destroy(self, request, pk=None):',
        '        Note.objects.filter(pk=pk).delete()',
        '        return Response(status=204)',
        '    @action(detail=True, methods=["post"])',
        '    def publish(self, request, pk=None):',
        '        return Response()',
      );
    assert.deepEqual(await guards({ 'views.py': viewset('    queryset = Note.objects.all()') }), ['NoteViewSet.destroy false', 'NoteViewSet.publish false']);
    assert.deepEqual(await guards({ 'views.py': viewset('    permission_classes = [IsAuthenticated]') }), ['NoteViewSet.destroy true', 'NoteViewSet.publish true']);
    const classful = lines(
      'from flask_classful import FlaskView',
      'class MessagesView(FlaskView):',
      '    @login_required',
      '    def index(self):',
      '        return jsonify([m.serialize for m in Message.query.all()])',
      '    def post(self):',
      '        db.session.add(Message(text=request.get_json()["text"]))',
      '        db.session.commit()',
      '        return jsonify({})',
    );
    assert.deepEqual(await guards({ 'views.py': classful }), ['MessagesView.index true', 'MessagesView.post false']);
    assert.deepEqual(await check({ 'views.py': classful }, MISSING), [`${MISSING}@views.py:6`]);
  });
});

describe('checks in the body', () => {
  test('an if anywhere at the top of a handler that tests the caller and turns them away, or answers 401, guards it', async () => {
    const handler = (check: string[]) =>
      lines('from flask import Flask, request, session', 'app = Flask(__name__)', '@app.route("/notes", methods=["POST"])', 'def add():', '    data = request.get_json()', '    text = data["text"]', '    tags = data.get("tags", [])', '    owner = data.get("owner")', ...check, '    db.session.add(Note(text=text))', '    db.session.commit()', '    return "ok"');
    assert.deepEqual(await guards({ 'app.py': handler(['    if not has_valid_token(request.headers.get("Authorization")):', '        return redirect("/login")']) }), ['add true']);
    assert.deepEqual(await guards({ 'app.py': handler(['    if not request.headers.get("X-Api-Key"):', '        return {"error": "no key"}, 401']) }), ['add true']);
    assert.deepEqual(await guards({ 'app.py': handler(['    if not text:', '        return redirect("/")']) }), ['add false'], 'a check of the input');
  });
});

describe('routes declared elsewhere', () => {
  test("Flask's add_url_rule routes a view, with a guard wrapped around it there; Bottle's bare decorators route too", async () => {
    const views = lines('def wipe():', '    Note.query.delete()', '    db.session.commit()', '    return "ok"', 'def me():', '    return "me"');
    const app = (view: string) =>
      lines('from flask import Flask', 'from flask_login import login_required', 'from views import wipe, me', 'app = Flask(__name__)', `app.add_url_rule("/wipe", view_func=${view}, methods=["POST"])`, 'app.add_url_rule("/me", "me", login_required(me))');
    assert.deepEqual(await guards({ 'views.py': views, 'app.py': app('wipe') }), ['wipe false', 'me true']);
    assert.deepEqual(await check({ 'views.py': views, 'app.py': app('wipe') }, MISSING), [`${MISSING}@views.py:1`]);
    assert.deepEqual(await guards({ 'views.py': views, 'app.py': app('login_required(wipe)') }), ['wipe true', 'me true']);
    const bottle = lines('from bottle import route, post, request', '@post("/notes")', 'def add():', '    db.execute("INSERT INTO notes VALUES (?)", (request.forms.get("text"),))', '@route("/me")', 'def me():', '    if not request.get_cookie("account", secret=KEY):', '        abort(401)', '    return "me"');
    const program = await buildPythonProgram([{ path: 'app.py', text: bottle }]);
    assert.deepEqual(program.handlers.map((h) => `${h.methods.join()} ${h.paths.join()} ${h.name} ${h.guarded}`), ['POST /notes add false', ' /me me true']);
  });
});

describe('what makes an open entry point worth a finding', () => {
  const app = (...routes: string[]) =>
    lines(
      'from flask import Flask, request, session, jsonify',
      'from flask_login import login_required',
      'app = Flask(__name__)',
      '@app.route("/me")',
      '@login_required',
      'def me():',
      '    return "me"',
      ...routes,
    );
  test('listing every account, administering the store and changing data are; reading public records and password recovery are not', async () => {
    const products = ['@app.route("/products")', 'def products():', '    rows = db.execute("SELECT * FROM products WHERE name LIKE ?", (request.args["q"],))', '    return jsonify(rows)'];
    const users = ['@app.route("/users")', 'def users():', '    return jsonify([u.json() for u in User.query.all()])'];
    const reset = ['@app.route("/createdb")', 'def create_db():', '    db.drop_all()', '    db.create_all()', '    return "ok"'];
    const forgot = ['@app.route("/forgot_password", methods=["POST"])', 'def forgot_password():', '    user = User.query.filter_by(email=request.form["email"]).first()', '    send_reset(user)', '    return "sent"'];
    const post = ['@app.route("/comments", methods=["POST"])', 'def comment():', '    db.session.add(Comment(text=request.form["text"]))', '    db.session.commit()', '    return "ok"'];
    assert.deepEqual(await check({ 'app.py': app(...products, ...forgot) }, MISSING), []);
    assert.deepEqual(await check({ 'app.py': app(...users, ...reset, ...post) }, MISSING), [`${MISSING}@app.py:8`, `${MISSING}@app.py:11`, `${MISSING}@app.py:16`]);
    const [listing] = (await checkPythonSources([{ path: 'app.py', text: app(...users) }])).findings;
    assert.match(listing.message, /reads users' account records/);
    assert.match(listing.message, /guards other routes beside it/);
  });
});

describe('records fetched by a caller-chosen id', () => {
  const flask = (...body: string[]) =>
    lines(
      'from flask import Flask, request, session, abort',
      'from flask_login import login_required, current_user',
      'app = Flask(__name__)',
      '@app.route("/notes/<int:note_id>", methods=["GET", "POST"])',
      '@login_required',
      'def note(note_id):',
      ...body,
      '    return jsonify(note.serialize())',
    );
  test('a lookup tied to the caller, in the query or in a check after it, is no finding; one tied to nobody is', async () => {
    assert.deepEqual(await check({ 'app.py': flask('    note = Note.query.get_or_404(note_id)') }, IDOR), [`${IDOR}@app.py:7`]);
    assert.deepEqual(await check({ 'app.py': flask('    user = current_user', '    note = Note.query.filter_by(id=note_id, owner=user).first()') }, IDOR), [], 'a name bound to the caller');
    assert.deepEqual(await check({ 'app.py': flask('    note = Note.query.filter_by(id=note_id).filter_by(owner_id=current_user.id).first()') }, IDOR), [], 'a filter chained after it');
    assert.deepEqual(await check({ 'app.py': flask('    note = Note.query.get(note_id)', '    if not can_edit(current_user, note):', '        return "no", 404') }, IDOR), [], 'a helper that decides');
    assert.deepEqual(await check({ 'app.py': flask('    note = Note.query.get(note_id)', '    if note.owner_id != current_user.id:', '        abort(404)') }, IDOR), [], 'compared with the caller');
    assert.deepEqual(await check({ 'app.py': flask('    note = Note.query.get(note_id)', '    if note is None:', '        abort(403)') }, IDOR), [], 'refused with 403: an authorization decision');
    assert.deepEqual(await check({ 'app.py': flask('    note = cache.get(note_id)') }, IDOR), [], 'a cache is not a store of records');
    const handed = (await checkPythonSources([{ path: 'app.py', text: flask('    note = Note.query.get(note_id)', '    audit(note)') + lines('def audit(note):', '    log(note.id)') }])).findings;
    assert.match(handed.find((f) => f.checkId.endsWith(IDOR))!.message, /hands the record to audit\(\), which this analysis did not follow/, 'says where it cannot tell');
  });

  test('a user-ish keyword holding a value the request sent ties the record to nobody; a record only cited is not read', async () => {
    const django = (use: string) =>
      lines(
        'from django.contrib.auth.decorators import login_required',
        '@login_required',
        'def account(request):',
        '    data = request.POST',
        '    account = Account.objects.get(user_id=data["account_id"])',
        use,
        '    return redirect("/")',
      );
    const urls = lines('from django.urls import path', 'from app import views', 'urlpatterns = [path("account", views.account)]');
    assert.deepEqual(await check({ 'app/views.py': django('    account.email = data["email"]\n    account.save()'), 'app/urls.py': urls }, IDOR), [`${IDOR}@app/views.py:5`]);
    assert.deepEqual(await check({ 'app/views.py': django('    account.email = data["email"]\n    account.save()').replace('data["account_id"]', 'request.user.id'), 'app/urls.py': urls }, IDOR), []);
    assert.deepEqual(await check({ 'app/views.py': django('    Message.objects.create(sender=request.user, recipient=account, text=data["text"])'), 'app/urls.py': urls }, IDOR), [], 'a recipient named, not read');
  });

  test("Django and DRF generic views: every record to every signed-in user, unless the queryset is the caller's or an object permission decides", async () => {
    const views = (bases: string, body: string[]) =>
      lines(
        'from django.contrib.auth.mixins import LoginRequiredMixin',
        'from django.views.generic import UpdateView',
        'from rest_framework import generics, permissions',
        `class NoteEdit(${bases}):`,
        '    model = Note',
        '    fields = ["text"]',
        ...body,
      );
    assert.deepEqual(await check({ 'notes/views.py': views('LoginRequiredMixin, UpdateView', []) }, IDOR), [`${IDOR}@notes/views.py:5`]);
    assert.deepEqual(await check({ 'notes/views.py': views('LoginRequiredMixin, UpdateView', ['    def get_queryset(self):', '        return Note.objects.filter(owner=self.request.user)']) }, IDOR), []);
    assert.deepEqual(await check({ 'notes/views.py': views('UpdateView', []) }, IDOR), [], 'open to anyone: a missing guard, not an ownership gap');
    const drf = (permissions: string) => views('generics.RetrieveUpdateDestroyAPIView', [`    permission_classes = [${permissions}]`]).replace('    model = Note', '    queryset = Note.objects.all()');
    assert.deepEqual(await check({ 'notes/views.py': drf('permissions.IsAuthenticated') }, IDOR), [`${IDOR}@notes/views.py:5`]);
    assert.deepEqual(await check({ 'notes/views.py': drf('permissions.IsAuthenticated, IsOwner') }, IDOR), [], 'a permission of the project decides per record');
  });

  test('SQL with a WHERE clause on the id is a lookup; the caller among its parameters scopes it', async () => {
    const sql = (query: string, parameters: string) => flask(`    note = db.execute("${query}", ${parameters}).fetchone()`);
    assert.deepEqual(await check({ 'app.py': sql('SELECT * FROM notes WHERE id = ?', '(note_id,)') }, IDOR), [`${IDOR}@app.py:7`]);
    assert.deepEqual(await check({ 'app.py': sql('SELECT * FROM notes WHERE id = ? AND user_id = ?', '(note_id, session["user_id"])') }, IDOR), []);
  });

  test('FastAPI: the caller a dependency hands over scopes the query', async () => {
    const api = (query: string) =>
      lines(
        'from fastapi import FastAPI, Depends',
        'app = FastAPI()',
        '@app.get("/notes/{note_id}")',
        'def read_note(note_id: int, db = Depends(get_db), user: User = Depends(get_current_user)):',
        `    return ${query}`,
      );
    assert.deepEqual(await check({ 'main.py': api('db.get(Note, note_id)') }, IDOR), [`${IDOR}@main.py:5`]);
    assert.deepEqual(await check({ 'main.py': api('db.query(Note).filter(Note.id == note_id, Note.owner_id == user.id).first()') }, IDOR), []);
  });
});
