import sys

from voice_ref.cli import main

sys.exit(main())
