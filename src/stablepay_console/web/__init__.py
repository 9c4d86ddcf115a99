"""The console in a browser: `stablepay-console web` serves it with textual-serve, behind our own sign-in.

textual-serve starts one console process per browser tab. It has no sign-in, no Origin check and
downloads tied to no one; this package adds them (`guard`, `signin`, `downloads`), starts each console
with the signed-in name in its environment (`consoles`), and checks that name against the team
record's roles (services/team/signin). Nothing below the command line imports it.
"""
