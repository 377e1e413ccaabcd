import { writeWorkflowBundle } from './bundle.js';

const written = await writeWorkflowBundle(process.argv[2]);
console.log(`workflow bundle written to ${written}`);
