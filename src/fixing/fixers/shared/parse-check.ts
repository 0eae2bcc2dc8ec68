import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import YAML from 'yaml';
import { extractorFor } from '../../../inventory/extractors/index.ts';
import { ExtractError, parserReason, type ExtractContext } from '../../../inventory/extractors/extractor.ts';
import { codeParserFor, parseCode, syntaxErrors } from './syntax.ts';

// Whether a file still reads as what it is: source code without syntax errors, JSON, TOML and YAML that
// parse, manifests their extractor accepts. Reasons never quote the file, which may hold a credential.

const TOML_FILES = /\.toml$|(?:^|\/)(?:poetry|uv|pdm|Cargo)\.lock$/;
const YAML_FILES = /\.ya?ml$/i;
const JSON_FILES = /\.json$/i;

/** Why the text does not parse as its file type, or null when it does (or the type is not checked). */
export async function parseProblem(file: string, text: string, context: ExtractContext): Promise<string | null> {
  const parser = codeParserFor(file);
  if (parser) {
    const errors = syntaxErrors(parseCode(parser, text));
    return errors.count ? `syntax error at line ${errors.firstLine}` : null;
  }
  const syntax = dataSyntaxProblem(file, text);
  if (syntax) return syntax;
  const extractor = extractorFor(file);
  if (!extractor) return null;
  try {
    await extractor.extract({ path: file, text }, context);
    return null;
  } catch (error) {
    if (error instanceof ExtractError) return error.message.slice(file.length + 2);
    throw error;
  }
}

function dataSyntaxProblem(file: string, text: string): string | null {
  try {
    if (JSON_FILES.test(file)) JSON.parse(text.replace(/^\uFEFF/, ''));
    else if (TOML_FILES.test(file)) parseToml(text);
    else if (YAML_FILES.test(file)) {
      const error = YAML.parseAllDocuments(text).flatMap((d) => ('errors' in d ? d.errors : []))[0];
      if (error) return `not valid YAML: ${parserReason(error)}`;
    }
    return null;
  } catch (error) {
    const format = JSON_FILES.test(file) ? 'JSON' : 'TOML';
    return `not valid ${format}: ${parserReason(error)}`;
  }
}
