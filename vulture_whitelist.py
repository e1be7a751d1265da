# ruff: noqa  (names vulture reads, not code to run)
"""Names vulture (`make lint`, config in pyproject.toml's [tool.vulture]) reports as unused in src/ that are used
where it cannot see: read by a library through its own name, by a string, by another program, or on purpose
only by tests. Each name has its reason. Settled in the config instead: FastAPI routes, middleware and error
handlers (`ignore_decorators`), pydantic's `model_config` and Textual's handlers (`ignore_names`), and
Alembic's migrations (`exclude`: Alembic reads `revision`, `upgrade`, `downgrade`... by name).

A new name here needs a reason its own; a name found dead is removed, not listed. Not a module: vulture
only parses it (each line names what it keeps alive).
"""

# --- pydantic models and the protocol: fields validated in or serialized out, never read by name in Python
by  # server/keeper/schema.py Decided: a sheet's outcome, serialized to the pages
rolloff_due  # server/keeper/schema.py: read by keeper-sheet.js and game.js
server_message  # server/keeper/schema.py, server/tables/schema.py: the union scripts/protocol.py exports
expirationTime  # server/routes/push.py SubscriptionIn: the browser's PushSubscription field, validated
_clock  # server/routes/api.py: a pydantic field_validator, called by pydantic
protocol  # server/session/protocol.py Hello, server/session/views.py Welcome: the socket protocol's version
minimax_of  # server/session/views.py: read by game.js
turns_done  # server/session/views.py: read by table.js, keeper-sheet.js
saved_rolls  # server/session/views.py: read by table.js, keeper-sheet.js
last_box  # server/session/views.py: read by table.js
absent  # server/tables/schema.py: an event's field, read by table.js
bot_model  # server/tables/schema.py: read by table.js
paused  # server/tables/schema.py: read by table.js
clocks  # server/tables/schema.py: read by game.js, table.js

# --- SQLAlchemy columns: written by the database (onupdate), kept for operators and migrations
updated_at  # store/models.py

# --- called by name by Python or a library
__getattr__  # bots/, coach/, server/ __init__.py: a module's lazy attributes (PEP 562)
app_from_env  # server/app.py: uvicorn's factory, named by the string "yambak.server.app:app_from_env"
openapi  # server/openapi.py: FastAPI calls app.openapi() for the schema it serves
metadata  # env/aec.py, env/gym.py: the Gymnasium and PettingZoo environments' class attribute
rewards  # env/aec.py: PettingZoo's AEC API reads it after every step
action_masks  # env/gym.py: what sb3-contrib's MaskablePPO calls
compress_type  # server/keeper/bundle.py: a ZipInfo attribute zipfile reads
max_redirects  # server/push/manager.py: a requests.Session attribute requests reads
frac_prec  # web/i18n.py: a Babel NumberPattern attribute Babel reads
fixed_columns  # terminal/app.py: a Textual DataTable attribute Textual reads

# --- read by scripts/messages.py (the catalogs' msgids), not by the server
COLOUR_NAMES  # web/i18n.py
SERVER_STRINGS  # web/i18n.py
SERVER_PLURALS  # web/i18n.py

# --- named in strings: Gymnasium's registry imports these entry points by name (env/__init__.py)
_ruleset_env  # env/__init__.py: yambak/ruleset-v0
_ruleset_vector_env  # env/__init__.py: yambak/ruleset-v0, vectorised

# --- used only by bench/ and tests/, on purpose
insert_results  # store/profiles.py: many results at once, how bench/profiles.py and the store tests seed a database
_play_block  # solver/simulate.py: the plain NumPy game loop the compiled one is checked against (tests/solver)
claim_seat  # store/store.py: the synchronous form of claim_seat_op, which the store tests drive
set_rematch  # store/store.py: the synchronous form of set_rematch_op, which the store tests drive
set_grade  # store/decisions.py: the synchronous form of a grade's write, which the store and fair-play tests drive
graded_decisions  # store/decisions.py: a result's stored decisions, read back by the grader's tests (and the fair-play review to come)

# --- to remove after the session-core/terminal work
# Dead names in server/session/, server/tables/, server/keeper/manager.py, keeper/view.py, terminal/, cli.py
# (being restructured when vulture came in): none found on 2026-12-07; list any found here, then remove them.

# --- used only by tests, on purpose (the earned ladder)
marks_of  # store/ranked.py: a profile's marks, which the ranked tests read back (kept 30 days, gone with it)

# --- read by libraries or through a module's __getattr__
added_at  # store/models.py: when a sheet was filed in a group (a SQLAlchemy column, written by store/groups.py)
ENABLE_COMMAND_PALETTE  # terminal/app.py, train_app.py: Textual reads it (its English-only palette off)
JS_STRINGS  # web/i18n.py: annotations of the names its module __getattr__ answers (read when first used)
JS_CONTEXTS  # web/i18n.py: as JS_STRINGS
JS_PLURALS  # web/i18n.py: as JS_STRINGS

# --- fields of TypedDicts read by key (typed messages between processes)
away  # server/cluster.py: OwnerMessage, the seconds each absent seat has been away (tables/presence.py reads it)
signed_in  # server/profiles/manager.py: DeviceOut, when a device signed in (the profile page reads it)
this  # server/profiles/manager.py: DeviceOut, whether it is the asking device (the profile page reads it)

# --- fields of the boards' TypedDicts (server/daily/boards.py, server/routes/daily.py): read by the pages
mp  # BoardRow, PeriodRow, PeriodScore: matchpoints (templates/_daily_board.html, daily.html, tournament.html)
opens_in  # DealBoard: seconds until the deal opens (the pages count down from it)
closes_in  # DealBoard: seconds until it closes (as opens_in)
unfinished  # DealBoard: the games a closed deal left unfinished (templates/_daily_board.html)
organiser_gone  # TournamentOut: the organiser's profile was deleted (templates/tournament.html)
medium_median  # fairplay._Measured: read by its key (assisted_lines; the figures in docs/ranked.md)
medium_worst  # fairplay._Measured: the medium bot's worst game, kept with the line (tests/server/test_fairplay.py)
easy_p10  # fairplay._Measured: the easy bot's 10th percentile, kept with the line (tests/server/test_fairplay.py)
medium_games  # fairplay._Measured: how many medium games were measured (docs/ranked.md)
easy_games  # fairplay._Measured: how many easy games were measured (docs/ranked.md)
easy_median  # fairplay._Measured: the line, read by key (thresholds)
