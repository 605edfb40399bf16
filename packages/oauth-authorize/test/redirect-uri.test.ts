import { describe, expect, it } from 'vitest';
import { redirectUriRefusal, redirectUriRegistered } from '../src/redirect-uri.js';

describe('redirect URIs', () => {
  it('match registered ones exactly, as strings', () => {
    const registered = ['https://app.example/cb', 'https://app.example/cb?x=1'];
    expect(redirectUriRegistered(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectUriRegistered(registered, 'https://app.example/cb?x=1')).toBe(true);
    expect(redirectUriRegistered(registered, 'https://app.example/cb/')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://APP.example/cb')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://app.example:8443/cb')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://app.example/cb?x=2')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://app.example/cb#x')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://evil.example@app.example/cb')).toBe(false);
  });

  it('let a loopback one name any port, nothing else changed (RFC 8252 §7.3)', () => {
    const registered = ['http://127.0.0.1/callback', 'http://localhost:3000/cb'];
    expect(redirectUriRegistered(registered, 'http://127.0.0.1:49152/callback')).toBe(true);
    expect(redirectUriRegistered(registered, 'http://localhost:51000/cb')).toBe(true);
    expect(redirectUriRegistered(registered, 'http://127.0.0.1:49152/other')).toBe(false);
    expect(redirectUriRegistered(registered, 'http://127.0.0.1:49152/callback?x=1')).toBe(false);
    expect(redirectUriRegistered(registered, 'http://localhost:49152/callback')).toBe(false);
    expect(redirectUriRegistered(registered, 'http://u@127.0.0.1:49152/callback')).toBe(false);
    expect(redirectUriRegistered(registered, 'https://127.0.0.1:49152/callback')).toBe(false);
    expect(redirectUriRegistered(registered, 'http://127.0.0.2:49152/callback')).toBe(false);
    expect(redirectUriRegistered(['https://app.example/cb'], 'http://127.0.0.1/cb')).toBe(false);
  });

  it('may be registered when https, http loopback or a private-use scheme', () => {
    expect(redirectUriRefusal('https://app.example/cb')).toBeUndefined();
    expect(redirectUriRefusal('http://127.0.0.1/cb')).toBeUndefined();
    expect(redirectUriRefusal('http://[::1]/cb')).toBeUndefined();
    expect(redirectUriRefusal('com.example.app:/oauth')).toBeUndefined();
    expect(redirectUriRefusal('http://app.example/cb')).toMatch(/https/);
    expect(redirectUriRefusal('javascript:alert(1)')).toMatch(/https/);
    expect(redirectUriRefusal('data:text/html,x')).toMatch(/https/);
    expect(redirectUriRefusal('https://app.example/cb#f')).toMatch(/fragment/);
    expect(redirectUriRefusal('/cb')).toMatch(/absolute/);
  });
});
