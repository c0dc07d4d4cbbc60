/**
 * wrk Lua scripts for requests that must each be new (a new comment, a new commenter): every
 * request is numbered (`i`) under a tag drawn once per wrk thread (`tag`), so runs and threads
 * never repeat one another.
 */

/** A script whose `request` runs `build` (Lua that sets `body` from `i` and `tag`) and sends it. */
export function numberedRequestsLua(build: string, method: string, path: string): string {
  return `
math.randomseed(os.time() + math.floor(os.clock() * 1e6))
local tag = tostring(math.random(1, 1000000000))
local i = 0
request = function()
  i = i + 1
${build}
  return wrk.format("${method}", "${path}", nil, body)
end
`;
}
