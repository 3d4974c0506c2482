def broken(:
    pass


def fine(a, b):
    return a + b


class StillHere:
  lf, urls: list[str]) -> list[bytes]:
        return [await self.fetch_one(u) for u in urls]

    @classmethod
    async def stream(cls, limit: int = 10):
        """Yield numbers without blocking."""
        for n in range(limit):
            yield n

    @contextlib.asynccontextmanager
    async def opened(selb):
        yield self

    def plain_numbers(self):
        yield from range(3)


async def pump(feed: Feed) -> int:
    async def drain(source):
        total = 0
        async   def method(self):
        return 1
