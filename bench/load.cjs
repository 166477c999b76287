// The load generator of bench_http.py: autocannon (programmatic API), one POST repeated,
// each request with its own JSON-RPC id (requests of one session in flight at once must
// not share one). Usage: node load.cjs '{"url": ..., "headers": {...}, "body": "...",
// "connections": N, "seconds": S, "expect": "..."}'; the body's "__ID__" is replaced.
// Every 2xx response's body is checked: a JSON-RPC error, an isError result, or a body
// without the expected text counts in "rpcErrors" (autocannon counts only non-2xx).
// Prints autocannon's result as JSON, with "rpcErrors" and "checked" added.
const autocannon = require('autocannon');

const config = JSON.parse(process.argv[2]);
let next = 0;
let rpcErrors = 0;
let checked = 0;
const ERROR = /"error"\s*:\s*\{/;
const IS_ERROR = /"isError"\s*:\s*true/;
autocannon(
  {
    url: config.url,
    connections: config.connections,
    duration: config.seconds,
    requests: [
      {
        method: 'POST',
        headers: config.headers,
        setupRequest: (request) => {
          next += 1;
          request.body = config.body.replace('"__ID__"', String(next));
          return request;
        },
        onResponse: (status, body) => {
          if (status < 200 || status >= 300) return; // autocannon counts these (non2xx)
          checked += 1;
          const text = String(body);
          if (ERROR.test(text) || IS_ERROR.test(text) || !text.includes('"result"') ||
              (config.expect && !text.includes(config.expect))) {
            rpcErrors += 1;
          }
        }
      }
    ]
  },
  (error, result) => {
    if (error) {
      console.error(error);
      process.exit(1);
    }
    result.rpcErrors = rpcErrors;
    result.checked = checked;
    process.stdout.write(JSON.stringify(result));
  }
);
