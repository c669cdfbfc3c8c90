"""``triton.runtime._allocation``, where Triton keeps the allocator that
``set_allocator`` installs, by the names host code imports: ``NullAllocator``
(none installed: called, it says that an allocator is needed). tritonc asks
no allocator for anything (``tritonc.set_allocator``), so none is called."""


class NullAllocator:
    def __call__(self, size, alignment, stream):
        raise RuntimeError("no allocator was set: call triton.set_allocator(fn) with a function (size, alignment, "
                           "stream) -> tensor (tritonc itself never asks for one)")
