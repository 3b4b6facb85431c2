/**
 * Part of `npm run bench:http`: GET /journal/documents, first page, over 100,000 documents
 * (issue 5 target: p99 at most 20 ms). Written with the journal read routes.
 */
process.stdout.write('\nGET /journal/documents over 100,000 documents: not measured yet (journal reads pending)\n');
