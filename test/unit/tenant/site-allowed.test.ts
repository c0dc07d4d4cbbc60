import assert from 'node:assert/strict';
import { test } from 'node:test';
import { siteAllowed } from '../../../actors/tenant/domain-configs.js';
import { requestSite } from '../../../http/site-check.js';

test('a domain admits itself and its subdomains, on any port unless it names one', () => {
  const domains = ['example.com', '*.wild.org', 'localhost:3000'];
  for (const site of ['example.com', 'www.example.com', 'a.b.example.com', 'example.com:8443', 'x.wild.org', 'localhost:3000', 'dev.localhost:3000']) {
    assert.ok(siteAllowed(domains, site), site);
  }
  for (const site of ['notexample.com', 'example.com.evil.net', 'wild.org', 'localhost', 'localhost:3001', 'evil.com']) {
    assert.ok(!siteAllowed(domains, site), site);
  }
});

test('the site of a request is its Origin host, else its Referer host; null and garbage are null', () => {
  assert.equal(requestSite({ origin: 'https://Blog.Example.com' }), 'blog.example.com');
  assert.equal(requestSite({ origin: 'http://localhost:3000' }), 'localhost:3000');
  assert.equal(requestSite({ referer: 'https://www.example.com/post?x=1' }), 'www.example.com');
  assert.equal(requestSite({ origin: 'https://a.example', referer: 'https://b.example/' }), 'a.example');
  assert.equal(requestSite({ origin: 'null' }), 'null');
  assert.equal(requestSite({ origin: 'not a url' }), 'null');
  assert.equal(requestSite({}), undefined);
});
