from advisor.cli import run

run()
