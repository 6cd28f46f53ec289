"""battlelog in the browser: advice in a real game, a game against the computer, and experiments to look at.

``battlelog serve`` runs :func:`battlelog.web.app.create_app` under uvicorn. The page (static/) is
plain HTML, JavaScript and CSS shipped in the package; it talks to the JSON API of the routers here:
advise.py (``/api/marginals``), play.py (``/api/play/...``) and results.py (``/api/results/...``).
Every request body is read by the same strict readers as files (requests.py); advice runs in worker
processes (workers.py) and games on worker threads (service.py), so that one slow request does not
stall the others, and the standard board's opening book (book.py) answers the early states at once.
"""
