// local-files.mjs: the one rule both scripts follow for a glTF file's external resources: a
// relative URI, percent-decoded, naming a file inside the glTF file's own folder.

import { realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * The file `uri` names relative to `folder`, or an exception when it is not a relative URI
 * (a scheme, an absolute path, a query or fragment) or leaves the folder (`..`, or a link).
 */
export async function resourceInFolder(folder, uri) {
	if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(uri) || uri.startsWith('/') || uri.startsWith('\\')) {
		throw new Error(`refused ${JSON.stringify(uri)}: not a relative URI`);
	}
	if (/[?#]/.test(uri)) {
		throw new Error(`refused ${JSON.stringify(uri)}: a query or fragment is not a file`);
	}
	let decoded;
	try {
		decoded = decodeURIComponent(uri);
	} catch {
		throw new Error(`refused ${JSON.stringify(uri)}: bad percent-encoding`);
	}
	const root = await realpath(folder);
	const inside = (p) => {
		const rel = path.relative(root, p);
		return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
	};
	const target = path.resolve(root, decoded);
	if (!inside(target)) {
		throw new Error(`refused ${JSON.stringify(uri)}: leaves the file's folder`);
	}
	const real = await realpath(target);
	if (!inside(real)) {
		throw new Error(`refused ${JSON.stringify(uri)}: a link that leaves the file's folder`);
	}
	return real;
}
