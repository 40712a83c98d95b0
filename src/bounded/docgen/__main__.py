import sys

from bounded.docgen.command import main

sys.exit(main())
