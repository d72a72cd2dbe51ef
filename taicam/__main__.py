from taicam.cli import main

raise SystemExit(main())
