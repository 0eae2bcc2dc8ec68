// What a repository declares about itself, read from its files: interpreter versions, pinned frameworks,
// how settings are read and how the app starts. Fixtures are small made-up repositories.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { compareVersions, packageBelow, pythonBelow, readRepoFacts } from '../../src/fixing/repo-facts.ts';
import { workTree } from '../support/fix-workspace.ts';

const facts = (files: Record<string, string>) => readRepoFacts(workTree(files).dir);

test('a Flask app on Python 2.7: the Dockerfile image, the pinned Flask, app.config and the compose service', async () => {
  const f = await facts({
    'Dockerfile': 'FROM python:2.7-slim\nENV FLASK_ENV=production PORT=5000\nCMD ["python", "app.py"]\n',
    'docker-compose.yml': 'services:\n  web:\n    build: .\n    environment:\n      - PORT=5000\n  db:\n    image: postgres:15\n',
    'requirements.txt': '# web\nFlask==0.12.2\nWerkzeug>=0.14,<1.0 ; python_version < "3"\nrequests\n',
    'app.py': 'import os\nfrom flask import Flask\napp = Flask(__name__)\napp.config["SECRET_KEY"] = "x"\nDB = os.environ.get("DATABASE_URL")\n',
    'wsgi.py': 'def application(environ, start_response):\n    return environ["PATH_INFO"]\n',
  });
  assert.deepEqual(f.languages, ['python']);
  assert.deepEqual(f.runtimes.python, { spec: '2.7', lowest: '2.7', source: 'Dockerfile' });
  assert.deepEqual(f.packages.flask, { spec: '==0.12.2', lowest: '0.12.2', source: 'requirements.txt' });
  assert.equal(f.packages.werkzeug.lowest, '0.14');
  assert.deepEqual(f.packages.requests, { spec: '', lowest: null, source: 'requirements.txt' });
  assert.equal(pythonBelow(f, '3'), true);
  assert.equal(packageBelow(f, 'Flask', '1.0'), true);
  assert.equal(packageBelow(f, 'django', '2.1'), null);
  assert.deepEqual(f.config.flaskConfig, ['app.py']);
  assert.deepEqual(f.config.envReads, { DATABASE_URL: ['app.py'] }, 'neither app.config["SECRET_KEY"] nor a WSGI environ key is a read of the environment');
  assert.deepEqual(f.start.dockerfiles, [{ path: 'Dockerfile', from: ['python:2.7-slim'], cmd: '["python", "app.py"]', entrypoint: null, env: ['FLASK_ENV', 'PORT'] }]);
  assert.deepEqual(f.start.compose, [
    {
      path: 'docker-compose.yml',
      services: [
        { name: 'web', build: '.', image: null, environment: 'list', envFile: [] },
        { name: 'db', build: null, image: 'postgres:15', environment: null, envFile: [] },
      ],
    },
  ]);
});

test('a Django project: the settings module, the lock before the manifest, the lowest Python declared', async () => {
  const f = await facts({
    'pyproject.toml': '[project]\nname = "shop"\nrequires-python = ">=3.8"\ndependencies = ["Django>=4.2,<5", "python-dotenv"]\n',
    'poetry.lock': '[[package]]\nname = "django"\nversion = "4.2.7"\n',
    'runtime.txt': 'python-3.11.4\n',
    'manage.py': 'import os\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")\n',
    'shop/settings.py': 'from dotenv import load_dotenv\nload_dotenv()\nINSTALLED_APPS = []\nSECRET_KEY = "k"\n',
    '.env.example': 'DEBUG=\n',
    'Procfile': 'web: gunicorn shop.wsgi\n',
  });
  assert.deepEqual(f.runtimes.python, { spec: '>=3.8', lowest: '3.8', source: 'pyproject.toml' });
  assert.deepEqual(f.packages.django, { spec: '==4.2.7', lowest: '4.2.7', source: 'poetry.lock' });
  assert.equal(f.packages['python-dotenv'].spec, '');
  assert.equal(packageBelow(f, 'django', '2.1'), false);
  assert.deepEqual(f.config.djangoSettings, ['shop/settings.py']);
  assert.deepEqual(f.config.dotenv, ['shop/settings.py']);
  assert.deepEqual(f.config.envTemplates, ['.env.example']);
  assert.deepEqual(f.config.envReads, { DJANGO_SETTINGS_MODULE: ['manage.py'] });
  assert.deepEqual(f.start.procfile, { web: 'gunicorn shop.wsgi' });
});

test('setup.py and its classifiers; Python 2 told by the code when nothing declares it', async () => {
  const declared = await facts({ 'setup.py': 'setup(python_requires=">=3.7", install_requires=["flask>=2.0"])\n' });
  assert.equal(declared.runtimes.python?.lowest, '3.7');
  assert.equal(declared.packages.flask.lowest, '2.0');
  const classified = await facts({ 'setup.py': 'setup(classifiers=["Programming Language :: Python :: 3.10", "Programming Language :: Python :: 3.9"])\n' });
  assert.equal(classified.runtimes.python?.lowest, '3.9');
  const legacy = await facts({ 'app.py': 'def main():\n    print "hello"\n' });
  assert.deepEqual(legacy.runtimes.python, { spec: '2', lowest: '2', source: 'Python 2 syntax in app.py' });
  const modern = await facts({ 'app.py': '"""Reports.\n\n    print the report\n"""\nprint("hello")\n' });
  assert.equal(modern.runtimes.python, undefined, 'prose in a docstring is not a print statement');
});

test('the versions a project is tested on in CI, and a Dockerfile FROM built from an ARG, are versions it runs on', async () => {
  const travis = await facts({ '.travis.yml': 'language: python\npython: 2.7\ninstall:\n  - make install\n', 'manage.py': 'import os\n' });
  assert.deepEqual(travis.runtimes.python, { spec: '2.7', lowest: '2.7', source: '.travis.yml' });
  assert.equal(pythonBelow(travis, '3'), true);
  const actions = await facts({
    '.github/workflows/test.yml':
      'jobs:\n  test:\n    strategy:\n      matrix:\n        python-version: ["3.10", "3.8"]\n        node-version: [18.x]\n    steps:\n' +
      '      - uses: actions/setup-python@v5\n        with:\n          python-version: ${{ matrix.python-version }}\n',
  });
  assert.equal(actions.runtimes.python?.lowest, '3.8', '3.10 stays 3.10, not the number 3.1');
  assert.equal(actions.runtimes.node?.lowest, '18.0.0');
  const tox = await facts({ 'tox.ini': '[tox]\nenvlist =\n    py36,\n    {py310,py311}-django\n\n[testenv]\ndeps = pytest\n' });
  assert.equal(tox.runtimes.python?.lowest, '3.6');
  const gitlab = await facts({ '.gitlab-ci.yml': 'test:\n  image: python:3.9-slim\n  script: pytest\n' });
  assert.equal(gitlab.runtimes.python?.lowest, '3.9');
  const arg = await facts({ 'Dockerfile': 'ARG PYTHON_VERSION=3.7\nFROM python:${PYTHON_VERSION}-alpine\nCMD ["python", "app.py"]\n' });
  assert.deepEqual(arg.runtimes.python, { spec: '3.7', lowest: '3.7', source: 'Dockerfile' });
  assert.deepEqual(arg.start.dockerfiles[0].from, ['python:3.7-alpine']);
  const nested = await facts({ 'docs/.travis.yml': 'python: 2.7\n', 'app.py': 'print("x")\n' });
  assert.equal(nested.runtimes.python, undefined, 'only the repository root\'s CI files speak for the app');
});

test('a Node app: engines, .nvmrc, the lock, dotenv and process.env reads', async () => {
  const f = await facts({
    'package.json': JSON.stringify({ engines: { node: '>=16' }, dependencies: { express: '^4.17.1', dotenv: '^16.0.0' } }),
    'package-lock.json': JSON.stringify({ lockfileVersion: 3, packages: { '': {}, 'node_modules/express': { version: '4.18.2' }, 'node_modules/a/node_modules/express': { version: '3.0.0' } } }),
    '.nvmrc': 'v18.17.0\n',
    'server.js': "require('dotenv').config();\nconst { PORT, SESSION_SECRET: secret } = process.env;\nconst key = process.env.API_KEY;\nconst t = `${HOST}`;\n",
    'node_modules/x/index.js': 'process.env.NOT_THE_APP\n',
  });
  assert.deepEqual(f.languages, ['node']);
  assert.deepEqual(f.runtimes.node, { spec: '>=16', lowest: '16.0.0', source: 'package.json' });
  assert.deepEqual(f.packages.express, { spec: '==4.18.2', lowest: '4.18.2', source: 'package-lock.json' });
  assert.equal(f.packages.dotenv.lowest, '16.0.0');
  assert.deepEqual(f.config.dotenv, ['server.js']);
  assert.deepEqual(Object.keys(f.config.envReads).sort(), ['API_KEY', 'PORT', 'SESSION_SECRET']);
});

test('never follows a symbolic link out of the checkout, and reads a tree once per commit', async () => {
  const outside = workTree({ 'requirements.txt': 'Django==1.11\n' });
  const workspace = workTree({ 'app.py': 'print("x")\n' });
  fs.symlinkSync(path.join(outside.dir, 'requirements.txt'), path.join(workspace.dir, 'requirements.txt'));
  fs.symlinkSync(outside.dir, path.join(workspace.dir, 'linked'));
  const f = await readRepoFacts(workspace.dir, { commit: 'c1' });
  assert.deepEqual(f.packages, {});
  assert.equal(await readRepoFacts(workspace.dir, { commit: 'c1' }), f, 'the same commit is read once');
});

test('versions compare numerically', () => {
  assert.ok(compareVersions('2.7', '3') < 0);
  assert.ok(compareVersions('3.10', '3.9') > 0);
  assert.equal(compareVersions('3', '3.0.0'), 0);
});

test('a repository with thousands of manifests has a bounded number read, its root\'s own always among them', async () => {
  const files: Record<string, string> = { 'runtime.txt': 'python-3.9.18\n' };
  for (let i = 0; i < 400; i++) files[`a/p${i}/requirements.txt`] = `pkg${i}==1.0\n`;
  const f = await facts(files);
  assert.equal(f.runtimes.python?.lowest, '3.9.18');
  const packages = Object.keys(f.packages).filter((name) => name.startsWith('pkg'));
  assert.ok(packages.length > 0 && packages.length < 400, `${packages.length} subfolder manifests read`);
});
