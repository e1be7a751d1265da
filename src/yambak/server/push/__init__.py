"""Web Push: a player who allowed notifications hears of their turn at an asynchronous table on every
device they subscribed, with no page open (`PushManager`; the browser's half is `static/push.js` and the
service worker `static/push-sw.js`)."""

from .manager import PushManager, subscription

__all__ = ["PushManager", "subscription"]
