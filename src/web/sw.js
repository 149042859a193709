// turnpost's service worker: keeps the page's shell on the device, so that it opens
// without a connection (and says so), and shows the pushes the server sends.
//
// The shell is cached whole under this version's name; the server writes the version (a
// hash of the shell) into this file, so a new page is a new worker. It installs beside the
// old one and waits: the page offers to switch, and on the player's word the new worker
// takes over and the page reloads once, so no page ever runs half old and half new.
'use strict';

const VERSION = '__SHELL_VERSION__';
const CACHE = `turnpost-shell-${VERSION}`;
const SHELL = ['/', '/app.js', '/people.js', '/app.css', '/manifest.webmanifest', '/icon-192.png', '/icon-512.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('turnpost-shell-') && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener('message', (event) => {
  if (event.data === 'take-over') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // Every page of the site is the same shell; the API is never cached.
  const isPage = request.mode === 'navigate'
    && /^\/(?:games\/[A-Za-z0-9]+|players\/[^/]+|leaderboards(?:\/[a-z_]+)?|archive|watch)?$/.test(url.pathname);
  const key = isPage ? '/' : url.pathname;
  if (!isPage && !SHELL.includes(key)) return;
  event.respondWith((async () => {
    const cached = await caches.match(key, { cacheName: CACHE });
    return cached ?? fetch(request);
  })());
});

self.addEventListener('push', (event) => {
  let message;
  try {
    message = event.data ? event.data.json() : null;
  } catch {
    message = null;
  }
  message ??= { title: 'turnpost', body: 'Something happened in one of your games.', url: '/', tag: 'turnpost' };
  event.waitUntil((async () => {
    const url = new URL(message.url || '/', self.location.origin).href;
    // A player looking at that very game needs no notification: the page tells them.
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const watching = windows.find((client) => client.url === url && client.focused && client.visibilityState === 'visible');
    if (watching) {
      watching.postMessage({ type: 'push', message });
      return;
    }
    await self.registration.showNotification(message.title || 'turnpost', {
      body: message.body || '',
      tag: message.tag || 'turnpost',
      renotify: true,
      icon: '/icon-192.png',
      badge: '/icon-192.png',
      data: { url, type: message.type ?? null, game_id: message.game_id ?? null },
    });
  })());
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = event.notification.data?.url || new URL('/', self.location.origin).href;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const same = windows.find((client) => client.url === url);
    if (same) {
      await same.focus().catch(() => {});
      return;
    }
    const any = windows.find((client) => 'navigate' in client);
    if (any) {
      const navigated = await any.navigate(url).catch(() => null);
      if (navigated) {
        await navigated.focus().catch(() => {});
        return;
      }
    }
    await self.clients.openWindow(url);
  })());
});
