from fianchetto.cli import main

raise SystemExit(main())
