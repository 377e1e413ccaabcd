import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rspack, type Compiler, type Configuration, type RspackPluginInstance } from '@rspack/core';
import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';

/** The repository root (this file is console-shell/build/federation.ts). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type PackageJson = { name: string; version: string };

function packageJson(directory: string): PackageJson {
  return JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as PackageJson;
}

const installed = (name: string) => packageJson(path.join(repoRoot, 'node_modules', name));

/**
 * Modules that exist once per page: the host provides them and every remote uses the host's copy,
 * so React state, the query cache and the session/theme contexts are shared. The router
 * (react-router) and the design system (Mantine) are reached only through `@engram/console-kit`,
 * so they are singletons too, and only their used parts are bundled (a shared package is bundled
 * whole; react-router alone would add 60 kB gzip).
 */
export function sharedSingletons(role: 'host' | 'remote') {
  const react = installed('react').version;
  const reactDom = installed('react-dom').version;
  const kit = packageJson(path.join(repoRoot, 'console-remotes/kit')).version;
  const singleton = (version: string) => ({ singleton: true, requiredVersion: `^${version}`, version });
  return {
    react: singleton(react),
    'react/jsx-runtime': singleton(react),
    'react-dom': singleton(reactDom),
    'react-dom/client': singleton(reactDom),
    '@tanstack/react-query': singleton(installed('@tanstack/react-query').version),
    // A remote must use the shell's kit (its contexts are the shell's), so it bundles no copy of its own.
    '@engram/console-kit': { ...singleton(kit), ...(role === 'remote' ? { import: false as const } : {}) },
    '@engram/console-kit/widgets': { ...singleton(kit), ...(role === 'remote' ? { import: false as const } : {}) },
  };
}

/** What a remote tells the shell about itself (served in the remotes manifest by the API). */
export type RemoteDescriptor = {
  /** The Module Federation name; the shell loads `<name>/app`. */
  name: string;
  /** Shown in the navigation. */
  title: string;
  /** Mounted under /projects/:projectSlug/<route>/*. */
  route: string;
  /** Tabler icon name the shell maps to an icon. */
  icon: string;
  order: number;
  /** `platform_admin`: the manifest lists the remote for platform admins only, so no one else's shell loads it. */
  audience?: 'platform_admin';
};

export type ConsoleAppOptions = {
  /** The app's folder (holding src/ and package.json). */
  root: string;
  mode: 'production' | 'development';
  /** The Module Federation name, also used for `output.uniqueName`. */
  name: string;
  /** Where the browser loads the built files from. */
  publicPath: string;
  /** Remotes: the exposed modules (one `./app` entry) and the descriptor the shell reads. */
  remote?: { exposes: Record<string, string>; descriptor: RemoteDescriptor };
  /** The host: renders an index.html. */
  html?: { title: string };
};

/** Writes `console-remote.json` next to the remote's `mf-manifest.json`. */
class RemoteDescriptorPlugin implements RspackPluginInstance {
  constructor(private readonly descriptor: RemoteDescriptor) {}
  apply(compiler: Compiler): void {
    compiler.hooks.thisCompilation.tap('RemoteDescriptorPlugin', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'RemoteDescriptorPlugin', stage: rspack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        compilation.emitAsset('console-remote.json', new rspack.sources.RawSource(`${JSON.stringify(this.descriptor, null, 2)}\n`));
      });
    });
  }
}

/** One rspack configuration for the shell or a remote; every console app builds the same way. */
export function consoleAppConfig(options: ConsoleAppOptions): Configuration {
  const production = options.mode === 'production';
  const plugins: Configuration['plugins'] = [
    new ModuleFederationPlugin({
      name: options.name,
      ...(options.remote ? { filename: 'remoteEntry.js', exposes: options.remote.exposes } : {}),
      // Remotes are registered at runtime from the manifest the API serves (never a literal URL here).
      remotes: {},
      shared: sharedSingletons(options.remote ? 'remote' : 'host'),
      shareStrategy: 'loaded-first',
      manifest: true,
      dts: false,
      ...(options.remote ? {} : { runtimePlugins: [path.join(options.root, 'src/runtime-plugins/retry-manifest.ts')] }),
    }),
  ];
  if (options.remote) plugins.push(new RemoteDescriptorPlugin(options.remote.descriptor));
  if (options.html) {
    plugins.push(
      new rspack.HtmlRspackPlugin({
        template: path.join(options.root, 'src/index.html'),
        title: options.html.title,
        minify: production,
      }),
    );
  }

  return {
    mode: options.mode,
    context: options.root,
    entry: { main: './src/index.ts' },
    devtool: production ? 'source-map' : 'eval-cheap-module-source-map',
    target: ['web', 'es2022'],
    output: {
      path: path.join(options.root, 'dist'),
      publicPath: options.publicPath,
      uniqueName: `engram_console_${options.name}`,
      filename: production ? '[name].[contenthash:8].js' : '[name].js',
      chunkFilename: production ? '[name].[contenthash:8].js' : '[name].js',
      cssFilename: production ? '[name].[contenthash:8].css' : '[name].css',
      cssChunkFilename: production ? '[name].[contenthash:8].css' : '[name].css',
      clean: true,
    },
    resolve: {
      extensions: ['.tsx', '.ts', '.js', '.mjs', '.json'],
      // Sources import './x.js' for TypeScript files (NodeNext style); resolve those to .ts/.tsx.
      extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
    },
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          exclude: /node_modules/,
          loader: 'builtin:swc-loader',
          type: 'javascript/auto',
          options: {
            jsc: {
              parser: { syntax: 'typescript', tsx: true },
              transform: { react: { runtime: 'automatic', development: !production, refresh: false } },
              target: 'es2022',
            },
          },
        },
        { test: /\.css$/, type: 'css' },
      ],
    },
    optimization: { minimize: production },
    performance: { hints: false },
    plugins,
    stats: 'errors-warnings',
    // The manifest plugin notes that publicPath 'auto' resolves at runtime, which is the intent.
    infrastructureLogging: { level: 'error' },
  };
}
