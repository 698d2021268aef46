/**
 * zip.js, as the app uses it: the build that compresses with the platform's own `CompressionStream`
 * (browsers and Node both have it, so no WebAssembly codec is shipped), in the calling thread (its own
 * workers would start from `blob:` URLs, which the app's CSP refuses, and library files are written and
 * read in the library worker already).
 */
import { configure } from '@zip.js/zip.js/index-native.js';

configure({ useWebWorkers: false, useCompressionStream: true });

export { BlobReader, BlobWriter, Uint8ArrayReader, Uint8ArrayWriter, ZipReader, ZipWriter, type Entry, type FileEntry } from '@zip.js/zip.js/index-native.js';
