from advisor.cli import main

main()
