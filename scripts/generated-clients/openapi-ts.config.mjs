// @hey-api/openapi-ts: types, a fetch client, zod schemas and an SDK whose calls validate
// requests and responses with them.
export default {
  input: process.env.TURNPOST_SPEC,
  output: 'src/client',
  plugins: [
    '@hey-api/client-fetch',
    '@hey-api/typescript',
    'zod',
    { name: '@hey-api/sdk', validator: true },
  ],
};
