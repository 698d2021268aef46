// pdf.js's own worker, for the page view of the Source dialog (src/ui/pdf-page.tsx): importing it in a
// worker makes it listen on `self`. Built from the bundle, so it loads from the app's origin (worker-src 'self').
import 'pdfjs-dist/legacy/build/pdf.worker.mjs';
