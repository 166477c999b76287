// The load generator of bench_http.py: autocannon (programmatic API), one POST repeated,
// each request with its own JSON-RPC id (requests of one session in flight at once must
// not share one). Usage: node load.cjs '{"url": ..., "headers": {...}, "body": "...",
// "connections": N, "seconds": S}'; the body's "__ID__" is replaced. Prints autocannon's
// result as JSON.
const autocannon = require('autocannon');

const config = JSON.parse(process.argv[2]);
let next = 0;
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
        }
      }
    ]
  },
  (error, result) => {
    if (error) {
      console.error(error);
      process.exit(1);
    }
    process.stdout.write(JSON.stringify(result));
  }
);
