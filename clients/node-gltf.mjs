// node-gltf.mjs: what the node scripts that load glTF files with three.js share (three-load.mjs,
// vrm-load.mjs): the stand-ins for the browser globals three's loaders need, console output sent
// to the file being loaded, and a load with a time limit that reads resources only from the
// file's own folder.
//
// Node has no DOM and no image decoder, so a few globals are stood in for (`installNodeStandIns`);
// the rest (fetch, Blob, URL.createObjectURL, Request, AbortSignal) node 20 has.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resourceInFolder } from './local-files.mjs';

/** Where console output goes while a file loads: that file's `errors` and `warnings`. */
let sink = null;

/** The folder of the file being loaded, as a `file:` URL ending in `/`. */
let currentFolder = null;

/**
 * The globals three's loaders need that node lacks, each as small as it can be:
 *
 * - `self`: GLTFLoader reads `self.URL` to make object URLs for images stored in buffer views.
 * - `ProgressEvent`: three's FileLoader streams every fetched body (buffers, data URIs) and makes
 *   one per chunk; without it the stream throws and the load never ends.
 * - `createImageBitmap`: with it GLTFLoader picks ImageBitmapLoader (fetch + createImageBitmap)
 *   instead of TextureLoader, which needs `document.createElementNS('img')`. Nothing is drawn
 *   here, so it decodes no pixels: it reads the width and height from a PNG or JPEG header and
 *   rejects anything else (GLTFLoader then logs "Couldn't load texture", which lands in
 *   `errors`, and leaves that map out).
 * - `document.createElementNS('img')`: three's ImageLoader, which @pixiv/three-vrm uses for a
 *   VRM's thumbnail, makes an `<img>` and waits for its `load` event. The stand-in fetches its
 *   `src` (through the `fetch` below) and reads its size from the header as `createImageBitmap`
 *   does, then fires `load`, or `error` when the bytes are not a PNG or JPEG. GLTFLoader itself
 *   never reaches it (it has `createImageBitmap`). Any other element is refused.
 * - `fetch`: node's fetch has no `file:` URLs, so those are read from disk, only inside the
 *   glTF file's folder (`local-files.mjs`, the rule the validator script follows too); `data:`
 *   and `blob:` URLs go to node's fetch; anything else (the network) is refused.
 */
export function installNodeStandIns() {
	globalThis.self ??= globalThis;
	globalThis.ProgressEvent ??= class ProgressEvent extends Event {
		constructor(type, init = {}) {
			super(type);
			this.lengthComputable = init.lengthComputable ?? false;
			this.loaded = init.loaded ?? 0;
			this.total = init.total ?? 0;
		}
	};
	globalThis.createImageBitmap = async (blob) => {
		const size = imageSize(new Uint8Array(await blob.arrayBuffer()));
		if (size === null) {
			throw refusal(`an image is not a PNG or JPEG (${blob.type || 'no type'}, ${blob.size} bytes)`);
		}
		return { ...size, close() {} };
	};
	globalThis.document ??= {
		createElementNS(namespace, name) {
			if (name !== 'img') throw new Error(`no <${name}> element in node (only <img> is stood in for)`);
			return new HeaderOnlyImage();
		},
	};
	const nodeFetch = globalThis.fetch;
	globalThis.fetch = async (input, init) => {
		const url = typeof input === 'string' ? input : input.url;
		if (url.startsWith('data:') || url.startsWith('blob:')) {
			return nodeFetch(url, init);
		}
		const folder = currentFolder;
		if (folder === null || !url.startsWith(folder.href)) {
			throw refusal(`refused ${url}: not a file in the glTF file's folder`);
		}
		try {
			const file = await resourceInFolder(fileURLToPath(folder), url.slice(folder.href.length));
			return new Response(await readFile(file), { status: 200 });
		} catch (e) {
			throw refusal(e.message);
		}
	};
}

/**
 * An `<img>` that reads only its size: setting `src` fetches the bytes and fires `load` with
 * `width`, `height`, `naturalWidth` and `naturalHeight` from the PNG or JPEG header, or `error`.
 */
class HeaderOnlyImage extends EventTarget {
	#src = '';
	width = 0;
	height = 0;
	naturalWidth = 0;
	naturalHeight = 0;
	complete = false;
	crossOrigin = null;
	fetchPriority = 'auto';

	get src() {
		return this.#src;
	}

	set src(url) {
		this.#src = url;
		this.#load(url).then(
			() => this.dispatchEvent(new Event('load')),
			(e) => {
				sink?.errors.push(`an image did not load: ${e?.message ?? e}`);
				this.dispatchEvent(new Event('error'));
			},
		);
	}

	async #load(url) {
		const response = await globalThis.fetch(url);
		const size = imageSize(new Uint8Array(await response.arrayBuffer()));
		if (size === null) throw new Error(`${url.slice(0, 60)} is not a PNG or JPEG`);
		this.width = this.naturalWidth = size.width;
		this.height = this.naturalHeight = size.height;
		this.complete = true;
	}
}

/**
 * An error for a stand-in to throw, also noted in the current file's `errors`: GLTFLoader's own
 * message for a failed resource does not say why it failed.
 */
function refusal(why) {
	sink?.errors.push(why);
	return new Error(why);
}

/** `{width, height}` from a PNG's IHDR or a JPEG's start-of-frame, or null. */
export function imageSize(b) {
	const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
	if (b.length >= 24 && png.every((v, i) => b[i] === v)) {
		const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
		return { width: v.getUint32(16), height: v.getUint32(20) };
	}
	if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
		let i = 2;
		while (i + 9 < b.length) {
			if (b[i] !== 0xff) return null;
			const marker = b[i + 1];
			if (marker === 0xff) {
				i += 1;
				continue;
			}
			const length = (b[i + 2] << 8) | b[i + 3];
			const startOfFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
			if (startOfFrame) {
				return { height: (b[i + 5] << 8) | b[i + 6], width: (b[i + 7] << 8) | b[i + 8] };
			}
			i += 2 + length;
		}
	}
	return null;
}

/** Sends console output to the current file's report (stdout carries only the JSON). */
export function captureConsole() {
	// An Event is what an <img> that failed hands on (three-vrm logs it as is).
	const one = (a) =>
		a instanceof Error ? a.message : a instanceof Event ? `(an "${a.type}" event)` : typeof a === 'string' ? a : String(a);
	const text = (args) => args.map(one).join(' ');
	const to = (kind) => (...args) => {
		if (sink !== null) sink[kind].push(text(args));
		else process.stderr.write(text(args) + '\n');
	};
	console.error = to('errors');
	console.warn = to('warnings');
	console.log = to('warnings');
	console.info = to('warnings');
	console.debug = () => {};
}

/** How long one file may take to load before it counts as never loading. */
const LOAD_TIMEOUT_MS = 120_000;

/** `loader.parse` of `bytes` as a promise, resources resolved against `folder`, time-limited. */
export function parse(loader, bytes, folder) {
	const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	let timer;
	const timeout = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`did not load in ${LOAD_TIMEOUT_MS / 1000} s`)), LOAD_TIMEOUT_MS);
	});
	const loaded = new Promise((resolve, reject) => loader.parse(data, folder.href, resolve, reject));
	return Promise.race([loaded, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Reads `file` and runs `work({bytes, folder, log})` with the file's folder as the only place
 * resources are read from and console output going to `log` (`{errors, warnings}`); returns
 * what `work` returns. Errors of `work` propagate; the folder and the log are released either
 * way. An unreadable file throws (the script cannot run).
 */
export async function withFile(file, work) {
	const bytes = await readFile(file);
	const folder = pathToFileURL(path.dirname(path.resolve(file)) + path.sep);
	const log = { errors: [], warnings: [] };
	sink = log;
	currentFolder = folder;
	try {
		return await work({ bytes, folder, log });
	} finally {
		sink = null;
		currentFolder = null;
	}
}
