// Builds the Activity into ../static/ (the files bot/web serves): app.js, app.css,
// index.html, the licenses of what the bundle contains, and build-info.json (a hash of the
// sources, so a test can tell a stale bundle without Node).
//
//   npm --prefix bot/web/client ci && npm --prefix bot/web/client run build
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'static');
mkdirSync(out, { recursive: true });

/** Every file the bundle is built from, in a fixed order (the same list the test hashes). */
function sources() {
  const files = ['build.mjs', 'package.json', 'package-lock.json'];
  const walk = (dir) => {
    for (const name of readdirSync(join(here, dir)).sort()) {
      const rel = join(dir, name);
      if (statSync(join(here, rel)).isDirectory()) walk(rel);
      else files.push(rel.split(sep).join('/'));
    }
  };
  walk('src');
  return files;
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const rel of sources()) {
    hash.update(rel + '\0');
    hash.update(readFileSync(join(here, rel)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const js = await esbuild.build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true,
  format: 'iife',
  target: ['es2020', 'chrome100', 'safari15'],
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
  metafile: true,
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
await esbuild.build({
  entryPoints: [join(here, 'src', 'app.css')],
  bundle: true,
  minify: true,
  target: ['chrome100', 'safari15'],
  outfile: join(out, 'app.css'),
  logLevel: 'warning',
});

// The packages whose code ended up in app.js, each with its license text.
const packages = new Map();
for (const input of Object.keys(js.metafile.inputs)) {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) continue;
  const name = parts[at + 1].startsWith('@') ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
  packages.set(name, join(here, ...parts.slice(0, at + 1), ...name.split('/')));
}
// The SDK ships copies of its own dependencies inside its output/lib/: their licenses too.
const sdk = packages.get('@discord/embedded-app-sdk');
if (sdk) {
  const deps = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')).dependencies ?? {};
  for (const name of Object.keys(deps)) {
    const vendored = Object.keys(js.metafile.inputs).some((i) => i.includes(`/output/lib/${name}/`));
    if (vendored) packages.set(name, join(here, 'node_modules', ...name.split('/')));
  }
}
const licenseText = (dir) => {
  const name = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  return name ? readFileSync(join(dir, name), 'utf8').trim() : null;
};
const sections = [];
for (const [name, dir] of [...packages].sort()) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const text = licenseText(dir);
  if (!text) throw new Error(`${name} has no license file: cannot ship it`);
  sections.push(`${name}@${pkg.version} (${pkg.license})\n${'='.repeat(60)}\n\n${text}\n`);
}
writeFileSync(
  join(out, 'THIRD-PARTY-LICENSES.txt'),
  'The third-party code inside app.js, and the license each is used under.\n\n' +
    sections.join('\n\n'),
);
if (sdk) {
  writeFileSync(join(out, 'embedded-app-sdk.LICENSE.md'), readFileSync(join(sdk, 'LICENSE.md')));
}

const bundleHash = createHash('sha256').update(readFileSync(join(out, 'app.js')))
  .update(readFileSync(join(out, 'app.css'))).digest('hex').slice(0, 12);
const html = readFileSync(join(here, 'src', 'index.html'), 'utf8').replaceAll('__BUILD__', bundleHash);
writeFileSync(join(out, 'index.html'), html);

writeFileSync(
  join(out, 'build-info.json'),
  JSON.stringify(
    {
      note: 'Written by bot/web/client/build.mjs; do not edit. sources_sha256 hashes the files listed.',
      sources: sources(),
      sources_sha256: sourceHash(),
      bundle: bundleHash,
      packages: [...packages.keys()].sort(),
    },
    null,
    2,
  ) + '\n',
);
console.log(`built ${relative(process.cwd(), out)} (${bundleHash}); bundled: ${[...packages.keys()].sort().join(', ')}`);
