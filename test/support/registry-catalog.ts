// Release metadata the dependency-fix tests resolve against: the Flask family's real requirements
// (trimmed to what the tests pin), Django, and a few npm packages with later versions than the fixes, so
// a test can tell the smallest fixing version from the newest.
import type { NpmCatalog, PypiCatalog } from './package-registry-standin.ts';

const pypi: PypiCatalog = {
  Flask: {
    '0.12.2': ['Werkzeug>=0.7', 'Jinja2>=2.4', 'itsdangerous>=0.21', 'click>=2.0'],
    '2.2.5': ['Werkzeug>=2.2.2', 'Jinja2>=3.0', 'itsdangerous>=2.0', 'click>=8.0', 'importlib-metadata>=3.6.0; python_version < "3.10"', 'asgiref>=3.2; extra == "async"'],
    '2.3.3': ['Werkzeug>=2.3.7', 'Jinja2>=3.1.2', 'itsdangerous>=2.1.2', 'click>=8.1.3', 'blinker>=1.6.2'],
    '3.0.0': ['Werkzeug>=3.0.0', 'Jinja2>=3.1.2', 'itsdangerous>=2.1.2', 'click>=8.1.3', 'blinker>=1.6.2'],
    '3.0.3': ['Werkzeug>=3.0.0', 'Jinja2>=3.1.2', 'itsdangerous>=2.1.2', 'click>=8.1.3', 'blinker>=1.6.2'],
  },
  Werkzeug: {
    '0.14.1': [],
    '2.2.2': ['MarkupSafe>=2.1.1'],
    '2.2.3': ['MarkupSafe>=2.1.1'],
    '2.3.7': ['MarkupSafe>=2.1.1'],
    '3.0.0': ['MarkupSafe>=2.1.1'],
    '3.0.3': ['MarkupSafe>=2.1.1'],
  },
  Jinja2: {
    '2.9.6': ['MarkupSafe>=0.23'],
    '2.10.1': ['MarkupSafe>=0.23'],
    '2.11.2': ['MarkupSafe>=0.23'],
    '2.11.3': ['MarkupSafe>=0.23'],
    '3.0.0': ['MarkupSafe>=2.0'],
    '3.1.2': ['MarkupSafe>=2.0'],
    '3.1.3': ['MarkupSafe>=2.0'],
    '3.1.4': ['MarkupSafe>=2.0'],
  },
  MarkupSafe: { '1.0': [], '1.1.1': [], '2.0.0': [], '2.0.1': [], '2.1.1': [], '2.1.3': [] },
  click: { '6.7': [], '7.1.2': [], '8.0.0': ['colorama; platform_system == "Windows"'], '8.1.3': ['colorama; platform_system == "Windows"'] },
  itsdangerous: { '0.24': [], '1.1.0': [], '2.0.0': [], '2.1.2': [] },
  blinker: { '1.6.2': [] },
  Django: { '1.9': [], '1.11.29': ['pytz'], '2.2.28': ['pytz', 'sqlparse>=0.2.2'], '3.2.25': ['asgiref<4,>=3.3.2', 'pytz', 'sqlparse>=0.2.2'], '4.2.16': ['asgiref<4,>=3.6.0', 'sqlparse>=0.3.1'] },
  requests: {
    '2.25.0': ['chardet<4,>=3.0.2', 'idna<3,>=2.5', 'urllib3<1.27,>=1.21.1', 'certifi>=2017.4.17'],
    '2.31.0': ['charset-normalizer<4,>=2', 'idna<4,>=2.5', 'urllib3<3,>=1.21.1', 'certifi>=2017.4.17'],
  },
  'requests-toolbelt': { '0.9.1': ['requests<3.0.0,>=2.0.1'], '1.0.0': ['requests<3.0.0,>=2.0.1'] },
  urllib3: { '1.26.4': [], '1.26.18': [], '2.0.7': [] },
  idna: { '2.10': [], '3.4': [], '3.7': [] },
  certifi: { '2023.7.22': [] },
};

const npm: NpmCatalog = {
  lodash: { '4.17.15': {}, '4.17.19': {}, '4.17.20': {}, '4.17.21': {}, '4.17.22': {} },
  jest: { '29.0.1': {}, '29.0.3': {}, '29.7.0': {} },
  'left-pad': { '1.1.0': {}, '1.1.3': {}, '1.3.0': {} },
  qs: { '6.5.2': {}, '6.5.3': { 'side-channel': '^1.0.4' }, '6.11.0': { 'side-channel': '^1.0.4' } },
  'side-channel': { '1.0.4': {} },
  express: { '4.17.1': { qs: '~6.5.2' }, '4.18.2': { lodash: '^4.17.15' } },
  minimist: { '1.2.5': {}, '1.2.6': {}, '1.2.8': {} },
};

export const REGISTRY_CATALOG = { pypi, npm };
