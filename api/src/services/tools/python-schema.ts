import type { ToolJsonSchema } from '@engram/db';
import { runInLocalSandbox } from '@engram/integrations/sandbox';
import { BadRequestError } from '../../errors.js';

/**
 * Derives a tool's JSON schema from its Python source with Python's own `ast` module, run in a sandboxed
 * child process. Python's parser knows the whole grammar — decorators, defaults with nested brackets,
 * string annotations, `X | None`, multi-line signatures — which a parser written in TypeScript would only
 * approximate; `ast.parse` never executes the source; and the child (empty environment, timeout, memory
 * cap) contains a source built to exhaust the parser. It costs one short-lived process per tool write.
 *
 * The generator returns {"schema": …} or {"error": "<message for a 400>"}.
 */
const SCHEMA_GENERATOR = String.raw`
import ast
import re

SECTION = re.compile(r'^(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples|Example|Notes|Note|Attributes|References|See Also|Warnings|Warning|Todo):\s*$')
ARGUMENT = re.compile(r'^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$')
ARGS_SECTIONS = ('Args', 'Arguments', 'Parameters', 'Params')
EXAMPLE_SECTIONS = ('Examples', 'Example')
RESERVED = ('self', 'agent_state')
PRIMITIVES = {'str': 'string', 'int': 'integer', 'float': 'number', 'bool': 'boolean'}
ARRAYS = ('list', 'List', 'Sequence', 'tuple', 'Tuple', 'set', 'Set', 'Iterable')
OBJECTS = ('dict', 'Dict', 'Mapping')


class SchemaError(Exception):
    pass


def parse_docstring(text):
    description, sections, current = [], {}, None
    for line in text.expandtabs().split('\n'):
        header = SECTION.match(line) if not line.startswith(' ') else None
        if header:
            current = header.group(1)
            sections.setdefault(current, [])
        elif current is None:
            description.append(line)
        else:
            sections[current].append(line)
    arguments = {}
    lines = [line for arg in ARGS_SECTIONS for line in sections.get(arg, [])]
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    entry_indent = min(indents) if indents else 0
    name = None
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        match = ARGUMENT.match(line.strip()) if indent == entry_indent else None
        if match:
            name = match.group(1)
            arguments[name] = match.group(2).strip()
        elif name is not None:
            arguments[name] = (arguments[name] + ' ' + line.strip()).strip()
    text = '\n'.join(description).strip()
    for section in EXAMPLE_SECTIONS:
        if sections.get(section):
            example = '\n'.join(sections[section]).strip('\n')
            text = (text + '\n\n' if text else '') + section + ':\n' + example
    return text, arguments


def name_of(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def is_none(node):
    return (isinstance(node, ast.Constant) and node.value is None) or name_of(node) == 'None'


def union_members(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union_members(node.left) + union_members(node.right)
    if isinstance(node, ast.Subscript) and name_of(node.value) == 'Union':
        inner = node.slice
        return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
    if isinstance(node, ast.Subscript) and name_of(node.value) == 'Optional':
        return [node.slice, ast.Constant(value=None)]
    return [node]


def unquote(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ast.parse(node.value, mode='eval').body
    return node


def is_optional(node):
    return any(is_none(member) for member in union_members(unquote(node)))


class Types:
    def __init__(self, classes):
        self.classes = classes
        self.expanding = []

    def schema(self, node, where):
        node = unquote(node)
        members = [member for member in union_members(node) if not is_none(member)]
        if len(members) > 1:
            return {'anyOf': [self.schema(member, where) for member in members]}
        if len(members) == 1 and members[0] is not node:
            return self.schema(members[0], where)
        name = name_of(node)
        if name is not None:
            if name in PRIMITIVES:
                return {'type': PRIMITIVES[name]}
            if name in ARRAYS:
                return {'type': 'array'}
            if name in OBJECTS:
                return {'type': 'object'}
            if name in self.classes:
                return self.model(name, where)
        if isinstance(node, ast.Subscript):
            base = name_of(node.value)
            inner = node.slice
            elements = [element for element in (inner.elts if isinstance(inner, ast.Tuple) else [inner]) if not (isinstance(element, ast.Constant) and element.value is Ellipsis)]
            if base in ARRAYS:
                return {'type': 'array', 'items': self.schema(elements[0], where)} if elements else {'type': 'array'}
            if base in OBJECTS:
                return {'type': 'object'}
            if base == 'Annotated':
                return self.schema(elements[0], where)
            if base == 'Literal':
                values = [element.value for element in elements if isinstance(element, ast.Constant)]
                kinds = {type(value) for value in values}
                literal = {'enum': values}
                if len(kinds) == 1:
                    literal = {'type': {str: 'string', int: 'integer', float: 'number', bool: 'boolean'}.get(kinds.pop(), 'string'), 'enum': values}
                return literal
        raise SchemaError("The type annotation '" + ast.unparse(node) + "' of " + where + " is not supported: use str, int, float, bool, list[...], dict, Literal[...], Optional[...] or a model class defined in the source")

    def model(self, name, where):
        if name in self.expanding:
            raise SchemaError('The model class ' + name + ' used by ' + where + ' refers to itself')
        self.expanding.append(name)
        cls = self.classes[name]
        properties, required = {}, []
        for statement in cls.body:
            if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
                continue
            field = statement.target.id
            prop = self.schema(statement.annotation, 'field ' + field + ' of ' + name)
            default = statement.value
            is_field_call = isinstance(default, ast.Call) and name_of(default.func) == 'Field'
            if is_field_call:
                for keyword in default.keywords:
                    if keyword.arg == 'description' and isinstance(keyword.value, ast.Constant):
                        prop['description'] = keyword.value.value
            if default is None:
                has_default = False
            elif is_field_call:
                # Field(...) and Field(description=...) are required; Field(x) and Field(default=...) are not.
                positional_default = bool(default.args) and not (isinstance(default.args[0], ast.Constant) and default.args[0].value is Ellipsis)
                has_default = positional_default or any(k.arg in ('default', 'default_factory') for k in default.keywords)
            else:
                has_default = True
            properties[field] = prop
            if not has_default and not is_optional(statement.annotation):
                required.append(field)
        self.expanding.pop()
        schema = {'type': 'object', 'properties': properties, 'required': required}
        doc = ast.get_docstring(cls)
        if doc:
            schema['description'] = doc.strip()
        return schema


def build(source, function_name):
    tree = ast.parse(source)
    functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if function_name:
        functions = [node for node in functions if node.name == function_name]
        if not functions:
            raise SchemaError("The source defines no function named '" + function_name + "'")
    if not functions:
        raise SchemaError('The source defines no function')
    function = functions[0]
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    types = Types(classes)
    description, documented = parse_docstring(ast.get_docstring(function) or '')
    arguments = function.args
    for variadic in (arguments.vararg, arguments.kwarg):
        if variadic is not None:
            raise SchemaError("Function '" + function.name + "' takes *" + variadic.arg + ': a tool takes named parameters only')
    positional = arguments.posonlyargs + arguments.args
    defaults = [False] * (len(positional) - len(arguments.defaults)) + [True] * len(arguments.defaults)
    parameters = list(zip(positional, defaults)) + [(arg, default is not None) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults)]
    properties, required = {}, []
    for arg, has_default in parameters:
        if arg.arg in RESERVED:
            continue
        where = "parameter '" + arg.arg + "' of function '" + function.name + "'"
        if arg.annotation is None:
            raise SchemaError('The ' + where + ' has no type annotation')
        if not documented.get(arg.arg):
            raise SchemaError('The ' + where + ' has no description: document it under Args: in the docstring')
        prop = types.schema(arg.annotation, where)
        prop['description'] = documented[arg.arg]
        properties[arg.arg] = prop
        if not has_default and not is_optional(arg.annotation):
            required.append(arg.arg)
    schema = {'name': function.name}
    if description:
        schema['description'] = description
    schema['parameters'] = {'type': 'object', 'properties': properties, 'required': required}
    return schema


def generate_schema(source, function_name=None):
    try:
        return {'schema': build(source, function_name)}
    except SchemaError as error:
        return {'error': str(error)}
    except SyntaxError as error:
        return {'error': 'The source is not valid Python: ' + str(error.msg) + ' (line ' + str(error.lineno) + ')'}
    except (RecursionError, MemoryError):
        return {'error': 'The source is too deeply nested to read'}
`;

const GENERATOR_TIMEOUT_MS = 10_000;
const GENERATOR_OUTPUT_BYTES = 1024 * 1024;
const GENERATOR_MEMORY_MB = 256;

type GeneratorResult = { schema: ToolJsonSchema } | { error: string };

/**
 * The tool schema of a Python function (the first of the source, or `functionName`): parameters from its
 * signature, descriptions from its Google-style docstring. Throws BadRequestError naming what is missing.
 */
export async function generatePythonSchema(source: string, functionName?: string | null): Promise<ToolJsonSchema> {
  const outcome = await runInLocalSandbox({
    language: 'python',
    sourceCode: SCHEMA_GENERATOR,
    functionName: 'generate_schema',
    args: { source, function_name: functionName ?? null },
    env: {},
    timeoutMs: GENERATOR_TIMEOUT_MS,
    maxOutputBytes: GENERATOR_OUTPUT_BYTES,
    memoryLimitMb: GENERATOR_MEMORY_MB,
    // Engram's own generator, which only parses the source (ast.parse) and never runs it.
    isolation: { kind: 'host', warning: 'the schema generator parses tool source without running it' },
  });
  if (outcome.status === 'error') throw new Error(`The Python schema generator failed: ${outcome.funcReturn}`);
  const result = JSON.parse(outcome.funcReturn) as GeneratorResult;
  if ('error' in result) throw new BadRequestError(result.error);
  return result.schema;
}
