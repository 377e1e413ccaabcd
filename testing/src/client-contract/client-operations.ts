import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

/**
 * What a response body of the official client may hold, read from its TypeScript types: enough to tell
 * which fields it relies on (required), which values it knows (enums) and what each field holds.
 */
export type Shape = { nullable: boolean } & (
  | { kind: 'any' }
  | { kind: 'string' | 'number' | 'boolean' }
  | { kind: 'enum'; values: Array<string | number | boolean> }
  | { kind: 'array'; item: Shape }
  | { kind: 'object'; properties: Record<string, { required: boolean; shape: Shape }> }
  | { kind: 'union'; members: Shape[] }
);

/** One call of `@letta-ai/letta-client`: `client.agents.blocks.retrieve` is `GET /v1/agents/{}/core-memory/blocks/{}`. */
export type ClientOperation = {
  /** The accessor the client's user writes, e.g. `agents.blocks.retrieve`. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path with every parameter written `{}`, e.g. `/v1/agents/{}/tools`. */
  path: string;
  /** The JSON body the client reads; `stream` for a server-sent event stream. */
  response: Shape | 'stream';
};

const HTTP_CALLS: Record<string, ClientOperation['method']> = {
  get: 'GET',
  getAPIList: 'GET',
  post: 'POST',
  put: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
};

/** Nested types deeper than this are taken as `any`: a recursive type would otherwise never end. */
const MAX_DEPTH = 8;

/** Every operation the installed official client calls, read from the TypeScript sources it ships. */
export function listClientOperations(): ClientOperation[] {
  const require = createRequire(import.meta.url);
  // The package exports no `package.json`: its main entry sits at its root, beside the `src/` it ships.
  const packageRoot = path.dirname(require.resolve('@letta-ai/letta-client'));
  const clientFile = path.join(packageRoot, 'src', 'client.ts');
  const program = ts.createProgram([clientFile], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(clientFile);
  const letta = source?.statements.find((statement): statement is ts.ClassDeclaration => ts.isClassDeclaration(statement) && statement.name?.text === 'Letta');
  if (!letta) throw new Error(`no class Letta in ${clientFile}`);
  const operations: ClientOperation[] = [];
  collectOperations(checker, letta, [], operations, new Set());
  return operations.sort((a, b) => a.name.localeCompare(b.name));
}

function collectOperations(checker: ts.TypeChecker, resource: ts.ClassDeclaration, prefix: string[], into: ClientOperation[], seen: Set<ts.ClassDeclaration>): void {
  if (seen.has(resource)) return;
  seen.add(resource);
  for (const member of resource.members) {
    const name = member.name && ts.isIdentifier(member.name) ? member.name.text : undefined;
    if (!name) continue;
    if (ts.isPropertyDeclaration(member) && member.initializer && ts.isNewExpression(member.initializer)) {
      const declaration = checker.getTypeAtLocation(member.initializer).getSymbol()?.valueDeclaration;
      if (declaration && ts.isClassDeclaration(declaration)) collectOperations(checker, declaration, [...prefix, name], into, seen);
    }
    if (ts.isMethodDeclaration(member) && member.body) {
      const call = httpCallIn(member.body);
      if (call) into.push({ name: [...prefix, name].join('.'), ...call, response: responseShape(checker, member) });
    }
  }
}

/** The `this._client.get('/v1/…')` (or the client's own `this.get`) a resource method makes. */
function httpCallIn(body: ts.Block): Pick<ClientOperation, 'method' | 'path'> | undefined {
  let found: Pick<ClientOperation, 'method' | 'path'> | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = HTTP_CALLS[node.expression.name.text];
      const target = node.expression.expression;
      const onClient = target.kind === ts.SyntaxKind.ThisKeyword || (ts.isPropertyAccessExpression(target) && target.name.text === '_client');
      const pathArgument = node.arguments[0];
      if (method && onClient && pathArgument) {
        found = { method, path: pathTemplate(pathArgument) };
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

/** `'/v1/blocks/'` or path`/v1/blocks/${blockID}` as `/v1/blocks/{}`. */
function pathTemplate(node: ts.Expression): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  const template = ts.isTaggedTemplateExpression(node) ? node.template : node;
  if (ts.isTemplateExpression(template)) return template.head.text + template.templateSpans.map((span) => `{}${span.literal.text}`).join('');
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  throw new Error(`unexpected path expression: ${node.getText()}`);
}

/**
 * The body behind `APIPromise<T>` (or `PagePromise<Page, Item>`). Of overloads, the one that does not
 * stream: `agents.messages.create` answers JSON unless asked to stream.
 */
function responseShape(checker: ts.TypeChecker, method: ts.MethodDeclaration): Shape | 'stream' {
  const symbol = checker.getSymbolAtLocation(method.name);
  const declarations = (symbol?.declarations ?? [method]).filter((declaration): declaration is ts.MethodDeclaration => ts.isMethodDeclaration(declaration));
  // With overloads, the implementation's own signature only joins theirs into one union.
  const overloads = declarations.filter((declaration) => !declaration.body);
  const signatures = overloads.length > 0 ? overloads : declarations;
  const bodies = signatures.map((declaration) => bodyType(checker, checker.getReturnTypeOfSignature(checker.getSignatureFromDeclaration(declaration)!)));
  const json = bodies.find((body) => body !== 'stream');
  if (!json) return 'stream';
  return 'arrayOf' in json ? { kind: 'array', item: describe(checker, json.arrayOf, 0), nullable: false } : describe(checker, json.type, 0);
}

/** The JSON body a call resolves to: a type, or (for an `ArrayPage`) a bare array of the page's items. */
type Body = { type: ts.Type } | { arrayOf: ts.Type };

function bodyType(checker: ts.TypeChecker, promise: ts.Type): Body | 'stream' {
  const promiseName = promise.getSymbol()?.getName();
  const [first, second] = checker.getTypeArguments(promise as ts.TypeReference);
  if (promiseName === 'PagePromise' && first && second) return pageBody(first, second);
  if (promiseName !== 'APIPromise' || !first) throw new Error(`unexpected return type ${checker.typeToString(promise)}`);
  return first.getSymbol()?.getName() === 'Stream' ? 'stream' : { type: first };
}

/**
 * An `ArrayPage` is a bare JSON array of items; another page class (`NextFilesPage`) declares the body's
 * fields (`files`, `next_cursor`, `has_more`) as its public properties.
 */
function pageBody(page: ts.Type, item: ts.Type): Body {
  return page.getSymbol()?.getName() === 'ArrayPage' ? { arrayOf: item } : { type: page };
}

function describe(checker: ts.TypeChecker, type: ts.Type, depth: number): Shape {
  if (depth > MAX_DEPTH) return { kind: 'any', nullable: true };
  const parts = type.isUnion() ? type.types : [type];
  // An optional field's type holds `undefined` too: whether it may be left out is `required`, not nullability.
  const nullable = parts.some((part) => part.flags & ts.TypeFlags.Null);
  const present = parts.filter((part) => !(part.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
  if (present.length === 0) return { kind: 'any', nullable: true };
  if (present.some((part) => part.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) return { kind: 'any', nullable: true };
  const literals = present.filter((part) => part.isLiteral() || part.flags & ts.TypeFlags.BooleanLiteral);
  if (literals.length === present.length) {
    const values = literals.map((literal) => (literal.isLiteral() ? (literal.value as string | number) : checker.typeToString(literal) === 'true'));
    // `boolean` is the union `true | false`: a plain boolean, not an enum.
    if (values.length === 2 && values.every((value) => typeof value === 'boolean')) return { kind: 'boolean', nullable };
    return { kind: 'enum', values, nullable };
  }
  // `true | false` inside a wider union is still a boolean; string literals beside a plain string (the
  // generator's `AgentType | (string & {})`) say no more than the string.
  const booleans = present.filter((part) => part.flags & ts.TypeFlags.BooleanLiteral);
  const anyString = present.some(isPlainString);
  const others = present.filter((part) => !(part.flags & ts.TypeFlags.BooleanLiteral) && !(anyString && part.isStringLiteral()));
  const members = [...(booleans.length === 2 ? [{ kind: 'boolean', nullable: false } as Shape] : booleans.map((part) => describe(checker, part, depth + 1))), ...others.map((part) => describeOne(checker, part, depth))];
  if (members.length === 1) return { ...members[0]!, nullable };
  return { kind: 'union', members, nullable };
}

/** `string`, or `string & {}`: a string that keeps its literal siblings in editor hints. */
function isPlainString(type: ts.Type): boolean {
  if (type.flags & ts.TypeFlags.String) return true;
  return type.isIntersection() && type.types.some((part) => part.flags & ts.TypeFlags.String);
}

function describeOne(checker: ts.TypeChecker, type: ts.Type, depth: number): Shape {
  if (isPlainString(type)) return { kind: 'string', nullable: false };
  if (type.flags & ts.TypeFlags.StringLike) return type.isStringLiteral() ? { kind: 'enum', values: [type.value], nullable: false } : { kind: 'string', nullable: false };
  if (type.flags & ts.TypeFlags.NumberLike) return type.isNumberLiteral() ? { kind: 'enum', values: [type.value], nullable: false } : { kind: 'number', nullable: false };
  if (type.flags & ts.TypeFlags.BooleanLike) return { kind: 'boolean', nullable: false };
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const [item] = checker.getTypeArguments(type as ts.TypeReference);
    return { kind: 'array', item: item ? describe(checker, item, depth + 1) : { kind: 'any', nullable: true }, nullable: false };
  }
  if (type.flags & ts.TypeFlags.Object || type.isIntersection()) {
    const properties: Record<string, { required: boolean; shape: Shape }> = {};
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (!declaration) continue;
      // Methods of page classes and the like are not part of a JSON body.
      if (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration)) continue;
      const modifiers = ts.canHaveModifiers(declaration) ? (ts.getModifiers(declaration) ?? []) : [];
      if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword || modifier.kind === ts.SyntaxKind.ProtectedKeyword)) continue;
      if (ts.isPropertyDeclaration(declaration) && ts.isPrivateIdentifier(declaration.name)) continue;
      properties[property.getName()] = {
        required: !(property.flags & ts.SymbolFlags.Optional),
        shape: describe(checker, checker.getTypeOfSymbolAtLocation(property, declaration), depth + 1),
      };
    }
    if (Object.keys(properties).length === 0) return { kind: 'any', nullable: false };
    return { kind: 'object', properties, nullable: false };
  }
  return { kind: 'any', nullable: true };
}
