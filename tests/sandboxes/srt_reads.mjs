// How the installed sandbox-runtime reads settings files, with its own code (run by tests/sandboxes/test_srt.py).
//
// node srt_reads.mjs PACKAGE_DIR INPUT.json, where INPUT is
//   {"configs": {NAME: CONFIG}, "answers": [[HOST, ADDRESS, PORT], ...]}
// prints {NAME: {"errors": [...], "config": PARSED, "permits": [bool, ...]}}: what srt's schema makes of
// CONFIG (the parsed config has only the keys srt keeps: zod drops the others silently), and whether
// srt's resolved-address check, built from that config's network section as srt builds it, lets each
// allowed HOST lead to ADDRESS on PORT (the DNS answers are stand-ins; nothing is resolved or dialed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [packageDir, inputPath] = process.argv.slice(2);
const load = (relative) => import(pathToFileURL(join(packageDir, 'dist', 'sandbox', relative)).href);
const { SandboxRuntimeConfigSchema } = await load('sandbox-config.js');
const { createResolvedAddressGuard } = await load('resolved-address-guard.js');

const input = JSON.parse(readFileSync(inputPath, 'utf-8'));
const found = {};
for (const [name, config] of Object.entries(input.configs)) {
  const result = SandboxRuntimeConfigSchema.safeParse(config);
  if (!result.success) {
    found[name] = { errors: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
    continue;
  }
  // This machine's own addresses are left out so the answers alone decide.
  const guard = createResolvedAddressGuard({ ...result.data.network, localAddresses: () => [] });
  const permits = (input.answers ?? []).map(([host, address, port]) => guard.permits(host, address, port));
  found[name] = { errors: [], config: result.data, permits };
}
process.stdout.write(JSON.stringify(found));
