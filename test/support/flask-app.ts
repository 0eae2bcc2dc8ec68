/** A small Flask application with one entry point whose query string reaches a shell: what the deep scan and its model phases find. */
export const FLASK_LOOKUP_APP = [
  'import os',
  'from flask import Flask, request',
  'app = Flask(__name__)',
  '',
  '@app.route("/lookup")',
  'def lookup():',
  '    return os.popen("nslookup " + request.args["host"]).read()',
  '',
].join('\n');
