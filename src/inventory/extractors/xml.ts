import { XMLValidator, type XMLParser } from 'fast-xml-parser';
import { ExtractError, parserReason, type ManifestFile } from './extractor.ts';

/**
 * An XML manifest's document. A file with a document type declaration is not read at all: its entities
 * (external ones reading the server's files, or nested ones expanding without end) are never expanded,
 * and no manifest format needs one. ExtractError for that and for a file that is not well-formed XML.
 */
export function parseXmlManifest(file: ManifestFile, parser: XMLParser): unknown {
  if (/<!DOCTYPE/i.test(file.text)) throw new ExtractError(file.path, 'declares a DOCTYPE, whose entities are never expanded, so it is not read');
  const validation = XMLValidator.validate(file.text);
  if (validation !== true) throw new ExtractError(file.path, `not well-formed XML (line ${validation.err.line}): ${validation.err.msg}`);
  try {
    return parser.parse(file.text);
  } catch (error) {
    throw new ExtractError(file.path, parserReason(error));
  }
}
