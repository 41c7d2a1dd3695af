// gltf-validate.mjs FILE...: runs the Khronos glTF-Validator on each .gltf/.glb file and prints
// one JSON array, a report per file, on stdout (shape in README.md). Exits 0 whenever it could
// run, however many errors the files have; non-zero, with the reason on stderr, only when it
// cannot (no file named, a file unreadable, the validator missing or failing).

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';
import { resourceInFolder } from './local-files.mjs';

const SEVERITIES = ['error', 'warning', 'info', 'hint'];

async function validate(file) {
	const bytes = await readFile(file);
	const folder = path.dirname(path.resolve(file));
	const report = await validator.validateBytes(new Uint8Array(bytes), {
		uri: path.basename(file),
		maxIssues: 0,
		writeTimestamp: false,
		// The validator reports a rejected promise as an IO_ERROR issue on the resource.
		externalResourceFunction: async (uri) =>
			new Uint8Array(await readFile(await resourceInFolder(folder, uri))),
	});
	const issues = report.issues;
	return {
		file,
		validatorVersion: report.validatorVersion,
		mimeType: report.mimeType ?? null,
		numErrors: issues.numErrors,
		numWarnings: issues.numWarnings,
		numInfos: issues.numInfos,
		numHints: issues.numHints,
		truncated: issues.truncated,
		messages: issues.messages.map((m) => ({
			code: m.code,
			severity: SEVERITIES[m.severity] ?? String(m.severity),
			pointer: m.pointer ?? null,
			offset: m.offset ?? null,
			message: m.message,
		})),
		info: report.info ?? null,
	};
}

async function main(files) {
	if (files.length === 0) {
		throw new Error('usage: node gltf-validate.mjs FILE...');
	}
	const reports = [];
	for (const file of files) {
		reports.push(await validate(file));
	}
	process.stdout.write(JSON.stringify(reports, null, 1) + '\n');
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write(`gltf-validate.mjs: ${e?.stack ?? e}\n`);
	process.exit(2);
});
