// render.mjs [--views V,...] [--size N|WxH] [--background RRGGBB] [--timeout SECONDS]
//            [--chromium PATH] -o OUT.png FILE...
// Draws .gltf/.glb files as an engine does: three.js's GLTFLoader and WebGLRenderer in headless
// chromium (Debian's, through SwiftShader, so no GPU is needed), every view of every file side by
// side in one PNG. It serves render.html, render-page.mjs (the drawing, see there), the installed
// packages of package.json and the files' own folders from a local HTTP server on 127.0.0.1 (a
// random path prefix per run), starts chromium on the page, waits for the page to post the
// picture back, stops chromium and prints one JSON report on stdout (shape in README.md).
//
// Exits 0 whenever it drew the picture, however badly a file loads (that goes in the file's
// `errors`, its tiles stay background); non-zero, with the reason on stderr, only when it cannot
// draw at all (no chromium, no WebGL, the page did not answer in time, bad arguments).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resourceInFolder } from './local-files.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VIEWS = ['front', 'three-quarter', 'side', 'back'];
const USAGE =
	'usage: node render.mjs [--views front,three-quarter,side,back] [--size N|WxH] [--background RRGGBB] ' +
	'[--timeout SECONDS] [--chromium PATH] -o OUT.png FILE...';

/** The executables tried, in order, when neither --chromium nor CHROMIUM names one. */
const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/**
 * Chromium's flags. Headless (the new headless mode, which keeps running until stopped), WebGL
 * through ANGLE's SwiftShader (software; `--enable-unsafe-swiftshader` is what chromium now wants
 * before it falls back to it), no sandbox (it needs user namespaces containers often lack, and
 * root refuses it; the page is ours and reads only this server), a fresh profile per run, and
 * nothing that talks to the network on its own.
 */
function chromiumFlags(profile, width, height) {
	return [
		'--headless',
		'--no-sandbox',
		'--disable-gpu',
		'--use-angle=swiftshader',
		'--enable-unsafe-swiftshader',
		'--disable-dev-shm-usage',
		'--disable-quic',
		'--no-first-run',
		'--no-default-browser-check',
		'--disable-background-networking',
		'--disable-component-update',
		'--disable-sync',
		'--disable-extensions',
		'--mute-audio',
		'--hide-scrollbars',
		`--user-data-dir=${profile}`,
		`--window-size=${width},${height}`,
	];
}

class UsageError extends Error {}

function parseArgs(argv) {
	const options = { views: ['front'], width: 512, height: 512, background: '#a5a8ac', timeout: 120, chromium: null, output: null, files: [] };
	const value = (i, flag) => {
		if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
		return argv[i + 1];
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--views') {
			options.views = value(i, a).split(',');
			for (const v of options.views) {
				if (!VIEWS.includes(v)) throw new UsageError(`unknown view ${JSON.stringify(v)} (${VIEWS.join(', ')})`);
			}
			i++;
		} else if (a === '--size') {
			const m = /^(\d+)(?:x(\d+))?$/.exec(value(i, a));
			if (!m) throw new UsageError(`--size takes N or WxH, not ${JSON.stringify(argv[i + 1])}`);
			options.width = Number(m[1]);
			options.height = Number(m[2] ?? m[1]);
			if (options.width < 1 || options.height < 1 || options.width > 4096 || options.height > 4096) {
				throw new UsageError('--size: each side from 1 to 4096 pixels');
			}
			i++;
		} else if (a === '--background') {
			const m = /^#?([0-9a-fA-F]{6})$/.exec(value(i, a));
			if (!m) throw new UsageError(`--background takes RRGGBB, not ${JSON.stringify(argv[i + 1])}`);
			options.background = `#${m[1].toLowerCase()}`;
			i++;
		} else if (a === '--timeout') {
			options.timeout = Number(value(i, a));
			if (!(options.timeout > 0)) throw new UsageError('--timeout takes a number of seconds');
			i++;
		} else if (a === '--chromium') {
			options.chromium = value(i, a);
			i++;
		} else if (a === '-o' || a === '--output') {
			options.output = value(i, a);
			i++;
		} else if (a.startsWith('-')) {
			throw new UsageError(`unknown option ${a}`);
		} else {
			options.files.push(a);
		}
	}
	if (options.files.length === 0 || options.output === null) throw new UsageError('name the files and -o OUT.png');
	const columns = options.files.length * options.views.length;
	if (columns * options.width > 16384) throw new UsageError('the picture would be wider than 16384 pixels');
	return options;
}

function executable(file) {
	try {
		accessSync(file, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** --chromium, else $CHROMIUM, else the first of CHROMIUM_NAMES on PATH. */
function findChromium(named) {
	const explicit = named ?? process.env.CHROMIUM;
	if (explicit) {
		if (!executable(explicit)) throw new Error(`${explicit} is not an executable chromium`);
		return explicit;
	}
	for (const name of CHROMIUM_NAMES) {
		for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
			if (dir && executable(path.join(dir, name))) return path.join(dir, name);
		}
	}
	throw new Error(
		`no chromium on PATH (${CHROMIUM_NAMES.join(', ')}): install Debian's \`chromium\` (apt-get install chromium) or name one with --chromium or CHROMIUM`,
	);
}

/** The packages of package.json, each with its installed folder (checked to be there). */
function installedPackages() {
	const manifest = JSON.parse(readFileSync(path.join(HERE, 'package.json'), 'utf8'));
	const packages = new Map();
	for (const name of Object.keys(manifest.dependencies ?? {})) {
		const folder = path.join(HERE, 'node_modules', name);
		try {
			accessSync(path.join(folder, 'package.json'));
		} catch {
			throw new Error(`${folder} is missing (run \`npm ci --prefix clients\` at the repository root)`);
		}
		packages.set(name, folder);
	}
	return packages;
}

const TYPES = {
	'.html': 'text/html; charset=utf-8',
	'.js': 'text/javascript; charset=utf-8',
	'.mjs': 'text/javascript; charset=utf-8',
	'.json': 'application/json',
	'.glb': 'model/gltf-binary',
	'.gltf': 'model/gltf+json',
	'.vrm': 'model/gltf-binary',
	'.bin': 'application/octet-stream',
	'.png': 'image/png',
	'.jpg': 'image/jpeg',
	'.jpeg': 'image/jpeg',
	'.webp': 'image/webp',
	'.ktx2': 'image/ktx2',
};

/** The page's own files, by the name the page asks for. */
const PAGE_FILES = ['render.html', 'render-page.mjs'];

/** The largest body the page may post (the picture as a data URL and the reports). */
const MAX_POST = 512 * 1024 * 1024;

/**
 * The local server: every path starts with `/<prefix>/`; `job.json`, the page's files, the
 * packages under `modules/<name>/`, the files under `files/<index>/` (each file's own folder, by
 * the rule of local-files.mjs), and `done`, where the page posts its result (`onDone`).
 */
function startServer(prefix, job, files, packages, onDone) {
	const send = (res, status, body, type = 'text/plain; charset=utf-8') => {
		res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
		res.end(body);
	};
	const serveFile = async (res, file) => send(res, 200, await readFile(file), TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream');
	const handle = async (req, res) => {
		const url = new URL(req.url, 'http://127.0.0.1');
		if (!url.pathname.startsWith(prefix)) return send(res, 404, 'not here');
		const rest = url.pathname.slice(prefix.length);
		if (req.method === 'POST' && rest === 'done') {
			const chunks = [];
			let size = 0;
			for await (const chunk of req) {
				size += chunk.length;
				if (size > MAX_POST) return send(res, 413, 'too large');
				chunks.push(chunk);
			}
			send(res, 200, 'ok');
			return onDone(Buffer.concat(chunks).toString('utf8'));
		}
		if (req.method !== 'GET') return send(res, 405, 'GET only');
		if (rest === 'job.json') return send(res, 200, JSON.stringify(job), TYPES['.json']);
		if (PAGE_FILES.includes(rest)) return serveFile(res, path.join(HERE, rest));
		if (rest.startsWith('modules/')) {
			const inside = rest.slice('modules/'.length);
			for (const [name, folder] of packages) {
				if (inside.startsWith(`${name}/`)) return serveFile(res, await resourceInFolder(folder, inside.slice(name.length + 1)));
			}
			return send(res, 404, 'not a package of package.json');
		}
		const m = /^files\/(\d+)\/(.+)$/.exec(rest);
		if (m && Number(m[1]) < files.length) {
			return serveFile(res, await resourceInFolder(path.dirname(files[Number(m[1])]), m[2]));
		}
		return send(res, 404, 'not here');
	};
	const server = http.createServer((req, res) => {
		handle(req, res).catch((e) => {
			if (!res.headersSent) send(res, 404, String(e?.message ?? e));
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve(server));
	});
}

/** Starts chromium in a process group of its own, so all its processes can be stopped. */
function startChromium(executablePath, flags, url) {
	const child = spawn(executablePath, [...flags, url], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
	let stderr = '';
	child.stderr.on('data', (d) => {
		stderr = (stderr + d).slice(-20000);
	});
	const exited = new Promise((resolve) => {
		child.once('exit', (code, signal) => resolve({ code, signal }));
		child.once('error', (e) => resolve({ error: e }));
	});
	return { child, exited, stderr: () => stderr };
}

/** Stops chromium's process group: SIGTERM, then SIGKILL after five seconds. */
async function stopChromium({ child, exited }) {
	const signal = (s) => {
		try {
			process.kill(-child.pid, s);
		} catch {
			// Already gone.
		}
	};
	signal('SIGTERM');
	const late = setTimeout(() => signal('SIGKILL'), 5000);
	await exited;
	clearTimeout(late);
	signal('SIGKILL');
}

/** The last lines of chromium's stderr worth showing (not its routine dbus complaints). */
function stderrTail(text) {
	return text
		.split('\n')
		.filter((l) => l.trim() && !l.includes('dbus'))
		.slice(-8)
		.join('\n');
}

async function render(options) {
	const started = performance.now();
	const chromium = findChromium(options.chromium);
	const packages = installedPackages();
	const files = options.files.map((f) => path.resolve(f));
	for (const f of files) await readFile(f).then(() => {}, (e) => { throw new Error(`${f}: ${e.message}`); });
	const prefix = `/${randomBytes(16).toString('hex')}/`;
	const job = {
		views: options.views,
		width: options.width,
		height: options.height,
		background: options.background,
		files: files.map((f, i) => ({ name: f, url: `files/${i}/${encodeURIComponent(path.basename(f))}` })),
	};
	let onDone;
	const done = new Promise((resolve) => {
		onDone = resolve;
	});
	const server = await startServer(prefix, job, files, packages, onDone);
	const profile = await mkdtemp(path.join(tmpdir(), 'render-chromium-'));
	const width = files.length * options.views.length * options.width;
	const url = `http://127.0.0.1:${server.address().port}${prefix}render.html`;
	const browser = startChromium(chromium, chromiumFlags(profile, width, options.height), url);
	let timer;
	try {
		const outcome = await Promise.race([
			done.then((body) => ({ body })),
			browser.exited.then((exit) => ({ exit })),
			new Promise((resolve) => {
				timer = setTimeout(() => resolve({ timeout: true }), options.timeout * 1000);
			}),
		]);
		if (outcome.timeout) {
			throw new Error(`the page did not post its picture in ${options.timeout} s\n${stderrTail(browser.stderr())}`);
		}
		if (outcome.exit) {
			const how = outcome.exit.error?.message ?? `code ${outcome.exit.code}, signal ${outcome.exit.signal}`;
			throw new Error(`${chromium} stopped before the page posted its picture (${how})\n${stderrTail(browser.stderr())}`);
		}
		const result = JSON.parse(outcome.body);
		if (result.fatal) throw new Error(`the page could not draw: ${result.fatal}`);
		const png = Buffer.from(result.png.replace(/^data:image\/png;base64,/, ''), 'base64');
		await writeFile(options.output, png);
		return {
			output: options.output,
			width: result.width,
			height: result.height,
			tileWidth: options.width,
			tileHeight: options.height,
			views: options.views,
			background: options.background,
			chromium,
			userAgent: result.userAgent,
			webgl: result.webgl,
			milliseconds: Math.round(performance.now() - started),
			files: result.files,
		};
	} finally {
		clearTimeout(timer);
		await stopChromium(browser);
		server.closeAllConnections();
		server.close();
		await rm(profile, { recursive: true, force: true, maxRetries: 5 });
	}
}

async function main(argv) {
	let options;
	try {
		options = parseArgs(argv);
	} catch (e) {
		if (e instanceof UsageError) {
			process.stderr.write(`render.mjs: ${e.message}\n${USAGE}\n`);
			process.exit(2);
		}
		throw e;
	}
	const report = await render(options);
	process.stdout.write(JSON.stringify(report, null, 1) + '\n');
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write(`render.mjs: ${e?.message ?? e}\n`);
	process.exit(2);
});
