import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { lineIndent, newlineOf } from '../../../shared/text-edits.ts';
import { functionAround, insertAt, statementOf } from '../edit-kit.ts';

// DocumentBuilderFactory / SAXParserFactory kept in a local variable → the next statement sets
// "disallow-doctype-decl", OWASP's first defence against XXE: a document with a DOCTYPE is refused, every
// other document parses as before. setFeature() throws the same checked exception as the
// newDocumentBuilder() / newSAXParser() call the method already makes, so it compiles where that does.

const DISALLOW_DOCTYPE = '"http://apache.org/xml/features/disallow-doctype-decl"';
const PARSER_OF: Record<string, string> = { DocumentBuilderFactory: 'newDocumentBuilder', SAXParserFactory: 'newSAXParser' };

export const javaXmlNoDoctype: Codemod = {
  name: 'java/xml-no-doctype',
  rules: ['java.lang.xxe.document-builder-defaults'],
  rewrite({ node, text }) {
    const call = node!;
    const factory = /^(?:javax\.xml\.parsers\.)?(\w+)\./.exec(call.text())?.[1] ?? '';
    const newParser = PARSER_OF[factory];
    if (!newParser) return refuse(`${factory} has no disallow-doctype-decl feature: turn off its external entities and DTDs with its own properties`);
    const declarator = call.parent();
    const statement = statementOf(call);
    if (!declarator || kindOf(declarator) !== 'variable_declarator' || kindOf(statement) !== 'local_variable_declaration') {
      return refuse('the factory is not kept in a local variable the parser settings could be made on');
    }
    const name = fieldOf(declarator, 'name')!.text();
    const method = functionAround(call);
    if (!method || !new RegExp(`\\b${name}\\s*\\.\\s*${newParser}\\s*\\(`).test(method.text())) {
      return refuse(`the parser is not made with ${name}.${newParser}() in the same method, so setFeature()'s checked exception may not be handled there`);
    }
    const indent = lineIndent(text, statement.range().start.index);
    return {
      edits: [insertAt(statement.range().end.index, `${newlineOf(text)}${indent}${name}.setFeature(${DISALLOW_DOCTYPE}, true);`)],
      note: 'Refused documents with a DOCTYPE, so no external entity or DTD is ever loaded; documents without one parse as before.',
    };
  },
};
