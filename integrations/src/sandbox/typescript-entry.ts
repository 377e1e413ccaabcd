import type * as TypeScript from 'typescript';

/** How the runner calls the tool: with the arguments object, or with its fields spread in parameter order. */
export type TypeScriptCall = { mode: 'object' } | { mode: 'positional'; names: string[] };

export type TypeScriptEntry = { ok: true; code: string; call: TypeScriptCall } | { ok: false; error: string };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// The compiler is large; a worker that never runs a TypeScript tool never loads it.
const loadCompiler = async (): Promise<typeof TypeScript> => (await import('typescript')).default;

type FunctionLike = TypeScript.FunctionDeclaration | TypeScript.ArrowFunction | TypeScript.FunctionExpression;

function findFunction(ts: typeof TypeScript, file: TypeScript.SourceFile, name: string): FunctionLike | undefined {
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name) return statement;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (ts.isIdentifier(declaration.name) && declaration.name.text === name && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
          return init;
        }
      }
    }
  }
  return undefined;
}

/**
 * Node 20 cannot run TypeScript, so the tool is transpiled (types stripped, no type checking) to an ES module
 * that also exports the tool under a fixed name. The model sends named arguments; a tool that takes one
 * destructured object gets them as that object, any other tool gets them positionally by parameter name.
 */
export async function prepareTypeScriptEntry(source: string, functionName: string): Promise<TypeScriptEntry> {
  if (!IDENTIFIER.test(functionName)) return { ok: false, error: `'${functionName}' is not a valid function name` };
  const ts = await loadCompiler();
  const file = ts.createSourceFile('tool.ts', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const tool = findFunction(ts, file, functionName);
  if (!tool) return { ok: false, error: `the source defines no function named '${functionName}'` };

  const [first, ...others] = tool.parameters;
  const takesOneObject = first !== undefined && others.length === 0 && ts.isObjectBindingPattern(first.name);
  const names = tool.parameters.map((parameter) => (ts.isIdentifier(parameter.name) ? parameter.name.text : null));
  if (!takesOneObject && names.some((name) => name === null)) {
    return { ok: false, error: `function '${functionName}' destructures a parameter; take either named parameters or one object` };
  }

  const output = ts.transpileModule(`${source}\nexport { ${functionName} as __engramTool };\n`, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    reportDiagnostics: true,
  });
  const [syntaxError] = output.diagnostics ?? [];
  if (syntaxError) return { ok: false, error: `TypeScript syntax error: ${ts.flattenDiagnosticMessageText(syntaxError.messageText, '\n')}` };
  const call: TypeScriptCall = takesOneObject ? { mode: 'object' } : { mode: 'positional', names: names as string[] };
  return { ok: true, code: output.outputText, call };
}
