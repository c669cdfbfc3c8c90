"""``tritonc.tools``: host-side helpers Triton kernels are launched with
(``triton.tools.tensor_descriptor``)."""
