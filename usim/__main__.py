import sys

from usim.cli import main

sys.exit(main())
