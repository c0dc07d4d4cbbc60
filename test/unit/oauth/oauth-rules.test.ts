import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { checkRedirectUri, clientMetadata, redirectMatches } from '../../../actors/oauth/client-model.js';
import { parseScopes, verifierMatches } from '../../../actors/oauth/grant-rules.js';
import { newToken, parseToken, seal, unseal } from '../../../actors/oauth/oauth-tokens.js';
import { ApiError } from '../../../engine/errors.js';
import { hashSecret } from '../../../engine/ids.js';
import { isOwnResource } from '../../../http/oauth/issuer.js';
import { oauthError } from '../../../http/respond.js';

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as ApiError).code;
  }
  return 'accepted';
};

test('scopes: read and write in any order, none meaning both; anything else is invalid_scope', () => {
  assert.deepEqual(parseScopes(undefined), ['read', 'write']);
  assert.deepEqual(parseScopes(' '), ['read', 'write']);
  assert.deepEqual(parseScopes('write read'), ['read', 'write']);
  assert.deepEqual(parseScopes('read  read'), ['read']);
  for (const bad of ['admin', 'READ', 'read,write', 'read offline_access']) assert.equal(code(() => parseScopes(bad)), 'oauth-invalid-scope', bad);
});

test('PKCE S256: the verifier whose SHA-256 is the challenge, as a client library makes them', async () => {
  const verifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(verifier);
  assert.ok(verifierMatches(verifier, challenge));
  assert.ok(!verifierMatches(oauth.generateRandomCodeVerifier(), challenge));
  assert.ok(!verifierMatches(challenge, challenge), 'plain: the challenge itself is no verifier');
  assert.ok(!verifierMatches('short', challenge));
});

test('redirect URIs: https, http on loopback, private-use schemes of native apps; nothing else', () => {
  for (const ok of ['https://app.example/cb', 'https://app.example/cb?x=1', 'http://127.0.0.1:8000/cb', 'http://[::1]/cb', 'http://localhost:3000/cb', 'com.example.app:/oauth']) assert.equal(code(() => checkRedirectUri(ok)), 'accepted', ok);
  for (const bad of ['http://app.example/cb', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'myapp:/cb', 'https://app.example/cb#x', 'https://u:p@app.example/cb', '/relative', '', ' https://app.example/cb', 'https://app.example/\u0000', 42]) {
    assert.equal(code(() => checkRedirectUri(bad)), 'oauth-invalid-redirect-uri', String(bad));
  }
});

test('redirect URIs match exactly, but a loopback IP redirect may name any port', () => {
  const registered = ['https://app.example/cb', 'http://127.0.0.1:1234/cb'];
  assert.ok(redirectMatches(registered, 'https://app.example/cb'));
  for (const other of ['https://app.example/cb/', 'https://APP.example/cb', 'https://app.example/cb?x=1', 'http://127.0.0.1:1234/other', 'http://localhost:1234/cb']) assert.ok(!redirectMatches(registered, other), other);
  assert.ok(redirectMatches(registered, 'http://127.0.0.1:5555/cb'));
});

test('client metadata: the RFC 7591 defaults, limits and refusals', () => {
  const m = clientMetadata({ redirect_uris: ['https://a.example/cb', 'https://a.example/cb'], client_name: '  App  ' });
  assert.deepEqual(m, { clientName: 'App', clientUri: null, logoUri: null, redirectUris: ['https://a.example/cb'], tokenEndpointAuthMethod: 'client_secret_basic' });
  assert.equal(clientMetadata({ redirect_uris: ['https://a.example/cb'] }, 'none').tokenEndpointAuthMethod, 'none');
  assert.equal(code(() => clientMetadata({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) })), 'oauth-invalid-redirect-uri');
  assert.equal(code(() => clientMetadata({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(201) })), 'oauth-invalid-client-metadata');
  assert.equal(code(() => clientMetadata({ redirect_uris: ['https://a.example/cb'], response_types: ['token'] })), 'oauth-invalid-client-metadata');
});

test('tokens name their grant and kind; anything else is not a token', () => {
  const token = newToken('refresh', 'tenant_1', '0123456789abcdef01234567');
  const ref = parseToken(token)!;
  assert.deepEqual({ ...ref }, { kind: 'refresh', tenantId: 'tenant_1', grantId: '0123456789abcdef01234567', grantKey: 'tenant_1:0123456789abcdef01234567', hash: hashSecret(token) });
  assert.notEqual(newToken('refresh', 'tenant_1', '0123456789abcdef01234567'), token, 'random');
  for (const bad of ['', 'fcor_t.g.s', `${token}x`, token.replace('fcor_', 'fcox_'), token.replace('.', ':')]) assert.equal(parseToken(bad), undefined, bad);
});

test('what a rotation seals opens only with the token it was sealed under', () => {
  const old = newToken('refresh', 't', '0123456789abcdef01234567');
  const sealed = seal(old, 'g', { refresh: 'next', n: 1 });
  assert.deepEqual(unseal(old, 'g', sealed), { refresh: 'next', n: 1 });
  assert.equal(unseal(newToken('refresh', 't', '0123456789abcdef01234567'), 'g', sealed), undefined, 'another token');
  assert.equal(unseal(old, 'other-grant', sealed), undefined, 'another grant');
  const tampered = Buffer.from(sealed, 'base64url');
  tampered[tampered.length - 1]! ^= 1;
  assert.equal(unseal(old, 'g', tampered.toString('base64url')), undefined, 'altered');
  assert.ok(!sealed.includes('next'));
});

test('resources of this server: the issuer or under it, absolute, without fragment', () => {
  assert.ok(isOwnResource('https://c.example', 'https://c.example/api/v1'));
  assert.ok(isOwnResource('https://c.example', 'https://c.example'));
  assert.ok(isOwnResource('https://c.example/base', 'https://c.example/base/api'));
  for (const other of ['https://c.example.evil/api', 'http://c.example/api', 'https://c.example/api#x', '/api', 'not a url']) assert.ok(!isOwnResource('https://c.example', other), other);
  assert.ok(!isOwnResource('https://c.example/base', 'https://c.example/basement'));
});

test('refusals name their RFC 6749 error', () => {
  assert.equal(oauthError(new ApiError('oauth-invalid-grant')), 'invalid_grant');
  assert.equal(oauthError(new ApiError('oauth-unsupported-grant-type')), 'unsupported_grant_type');
  assert.equal(oauthError(new ApiError('invalid-param')), 'invalid_request');
  assert.equal(oauthError(new ApiError('unsupported-media-type')), 'invalid_request');
  assert.equal(oauthError(new ApiError('rate-limited')), 'rate_limited');
  assert.equal(oauthError(new ApiError('storage-unavailable')), 'temporarily_unavailable');
  assert.equal(oauthError(new ApiError('internal-error')), 'server_error');
});
