docker run --privileged alpine
