// Preload (`node --import .../loopback.mjs`) for the MCP test tools: servers that listen on a
// port without naming a host listen on 127.0.0.1 only, and fetch() reaches loopback only.
import net from "node:net";

// The hook is the internal bind step (net.Server.prototype._listen2, Node 20/22), not listen():
// adding a host to listen() would make it asynchronous (a DNS lookup) and the suite reads
// server.address().port right after listen(0).
const listen2 = net.Server.prototype._listen2;
net.Server.prototype._listen2 = function (address, port, addressType, ...rest) {
  if (!address || address === "::" || address === "0.0.0.0") [address, addressType] = ["127.0.0.1", 4];
  return listen2.call(this, address, port, addressType, ...rest);
};

const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)) {
    return Promise.reject(new Error(`loopback.mjs: not fetching ${url} (loopback only)`));
  }
  return realFetch(input, init);
};
